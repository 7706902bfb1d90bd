// Server-Sent Events for one job: every telemetry event after Last-Event-ID (ids are sequences), a
// `status` message whenever the job's status or progress changes, ending after the final state.
import { isFinal } from "@/lib/domain/job-machine";
import { readJobProgress, type ExecutionJob } from "@/lib/domain/jobs";
import { jobChannel, onSignal } from "@/lib/domain/signals";
import type { Logger } from "@/lib/log";

const keepAliveMs = 15_000;

function frame(event: string, data: unknown, id?: number): string {
  return `${id !== undefined ? `id: ${id}\n` : ""}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export async function jobEventStream(accountId: string, jobId: string, lastEventId: number, signal: AbortSignal, log: Logger): Promise<Response> {
  // Read once up front so a missing or foreign job is a plain 404, not an empty stream.
  const first = await readJobProgress(accountId, jobId, lastEventId);
  const encoder = new TextEncoder();
  let wake: (() => void) | undefined;
  let dirty = false;
  const unlisten = await onSignal(jobChannel, (changed) => {
    if (changed === jobId) {
      dirty = true;
      wake?.();
    }
  });

  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (text: string) => controller.enqueue(encoder.encode(text));
      let cursor = lastEventId;
      let lastStatus = "";
      let snapshot: { job: ExecutionJob; events: Awaited<ReturnType<typeof readJobProgress>>["events"] } | undefined = first;
      try {
        send(`retry: 1000\n\n`);
        while (!signal.aborted) {
          dirty = false;
          snapshot ??= await readJobProgress(accountId, jobId, cursor);
          for (const event of snapshot.events) {
            send(frame("telemetry", event, event.sequence));
            cursor = event.sequence;
          }
          const { job } = snapshot;
          snapshot = undefined;
          const status = `${job.status}:${job.progress}:${job.attempt}`;
          if (status !== lastStatus) {
            send(frame("status", job));
            lastStatus = status;
          }
          if (isFinal(job.status)) break;
          if (dirty) continue;
          const idle = await new Promise<boolean>((resolve) => {
            const onAbort = () => wake?.();
            const timer = setTimeout(() => {
              signal.removeEventListener("abort", onAbort);
              resolve(true);
            }, keepAliveMs);
            wake = () => {
              clearTimeout(timer);
              signal.removeEventListener("abort", onAbort);
              resolve(false);
            };
            signal.addEventListener("abort", onAbort, { once: true });
          });
          wake = undefined;
          if (idle) send(`: keep-alive\n\n`);
        }
      } catch (err) {
        log.error("job event stream failed", { jobId, err });
      } finally {
        await unlisten();
        try {
          controller.close();
        } catch {
          // already closed by the client going away
        }
      }
    },
    async cancel() {
      wake?.();
      await unlisten();
    },
  });

  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
  });
}
