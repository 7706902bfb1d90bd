// A webhook receiver on 127.0.0.1: records every request (headers and raw body) and answers as the test
// says (a status, a status with a body of its own, or never). It also counts TCP connections, so a test can prove none was made.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface ReceivedWebhook {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
  /** What the receiver answered ("hang": nothing). */
  answered: number | "hang";
  /** The body of its answer. */
  answerBody: string | null;
}

/**
 * How to answer the nth request (0-based) to a path: a status code (with a 2 KB body saying it), a status with
 * a given body, or "hang" (never answer).
 */
export type Responder = (path: string, nth: number) => number | { status: number; body: string } | "hang";

export interface WebhookReceiver {
  url(path: string): string;
  port: number;
  received: ReceivedWebhook[];
  connections: () => number;
  respond(responder: Responder): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(responder: Responder = () => 200): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const perPath = new Map<string, number>();
  const hanging = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  let connections = 0;
  let answer = responder;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      const nth = perPath.get(path) ?? 0;
      perPath.set(path, nth + 1);
      const answered = answer(path, nth);
      const status = typeof answered === "object" ? answered.status : answered;
      const answerBody =
        typeof answered === "object" ? answered.body : status === "hang" ? null : `answer ${status} `.repeat(200);
      received.push({
        method: req.method ?? "",
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        receivedAt: Date.now(),
        answered: status,
        answerBody,
      });
      if (status === "hang") {
        hanging.add(res);
        return;
      }
      res.writeHead(status, { "content-type": "text/plain" }).end(answerBody);
    });
  });
  server.on("connection", (socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    connections: () => connections,
    respond(next) {
      answer = next;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The requests to one path with a given event type, deduplicated on webhook-id (what a receiver keeps). */
export function eventsAt(receiver: WebhookReceiver, path: string) {
  const seen = new Map<
    string,
    { id: string; body: string; headers: IncomingHttpHeaders; event: { type: string; data: Record<string, unknown> } }
  >();
  for (const r of receiver.received.filter((x) => x.path === path)) {
    const id = String(r.headers["webhook-id"]);
    if (!seen.has(id)) seen.set(id, { id, body: r.body, headers: r.headers, event: JSON.parse(r.body) });
  }
  return [...seen.values()];
}
