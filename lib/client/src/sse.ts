// A server-sent events reader (the WHATWG event-stream format) over a fetch response body.
import { untilAborted } from "./internal.js";

/** The part of a WHATWG `ReadableStream` the reader needs; Node's and the DOM's both fit. */
export interface ByteStream {
  getReader(): {
    read(): Promise<{ done: boolean; value?: Uint8Array }>;
    cancel(reason?: unknown): Promise<void>;
  };
}

export interface ServerSentEvent {
  /** The `event:` field; `message` when absent. */
  event: string;
  data: string;
  /** The stream's last event id when this message was dispatched (ids persist across messages). */
  lastEventId: string | null;
}

export interface ReadOptions {
  signal: AbortSignal;
  lastEventId: string | null;
  /** Called when the server sets the reconnection time with `retry:`. */
  onRetry?: (ms: number) => void;
}

export async function* readServerSentEvents(
  body: ByteStream,
  options: ReadOptions,
): AsyncGenerator<ServerSentEvent, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let lastEventId = options.lastEventId;
  let event = "";
  let data: string[] = [];

  function* processLine(line: string): Generator<ServerSentEvent> {
    if (line === "") {
      if (data.length > 0) yield { event: event || "message", data: data.join("\n"), lastEventId };
      event = "";
      data = [];
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
    else if (field === "id" && !value.includes("\0")) lastEventId = value;
    else if (field === "retry" && /^\d+$/.test(value)) options.onRetry?.(Number(value));
  }

  try {
    for (;;) {
      const { done, value } = await untilAborted(reader.read(), options.signal);
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      // A trailing CR may be the first half of CRLF: keep it until the next chunk.
      const complete = buffer.endsWith("\r") ? buffer.length - 1 : buffer.length;
      const lines = buffer.slice(0, complete).split(/\r\n|\r|\n/);
      buffer = (lines.pop() ?? "") + buffer.slice(complete);
      for (const line of lines) yield* processLine(line);
    }
    // A final CR ends a line; an event without its closing blank line is incomplete and dropped.
    if (buffer.endsWith("\r")) for (const line of buffer.slice(0, -1).split(/\r\n|\r|\n/)) yield* processLine(line);
  } finally {
    // Closing a body we stopped reading; it may already be errored or closed, which is fine.
    reader.cancel().catch(() => undefined);
  }
}
