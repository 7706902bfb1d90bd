// Server-Sent Events for one job: every telemetry event after Last-Event-ID (ids are sequences), a
// `status` message whenever the job's status or progress changes, ending after the final state — or with
// an `error` message once the credential that opened it is revoked or expired (re-checked every few seconds).
import { DomainError } from "@/lib/domain/errors";
import { releaseStreamPlace, renewStreamPlace, takeStreamPlace } from "@/lib/domain/event-streams";
import { isFinal } from "@/lib/engine/job-machine";
import { readJobProgress, type ExecutionJob } from "@/lib/engine/job-views";
import { jobChannel, onSignal } from "@/lib/domain/signals";
import { limits } from "@/lib/limits";
import type { Logger } from "@/lib/log";

const keepAliveMs = 15_000;

export interface StreamCredential {
  /** Resolves to false once the credential no longer grants this stream. */
  stillValid(): Promise<boolean>;
  code: "INVALID_API_KEY" | "UNAUTHENTICATED";
}

function frame(event: string, data: unknown, id?: number): string {
  return `${id !== undefined ? `id: ${id}\n` : ""}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export async function jobEventStream(
  accountId: string,
  jobId: string,
  lastEventId: number,
  signal: AbortSignal,
  log: Logger,
  credential: StreamCredential,
): Promise<Response> {
  let wake: (() => void) | undefined;
  let dirty = false;
  // Listening before the first read: a change committed after that read is heard. One committed between the
  // read and a later LISTEN would signal nobody and wait for the periodic re-check.
  const unlisten = await onSignal(jobChannel, (changed) => {
    if (changed === jobId) {
      dirty = true;
      wake?.();
    }
  });
  const opening = async () => ({
    // Read once up front so a missing or foreign job is a plain 404, not an empty stream.
    first: await readJobProgress(accountId, jobId, lastEventId),
    // The cap counts the account's streams on every server instance (a place is a database row).
    place: await takeStreamPlace(accountId, limits.streamsPerAccount, limits.streamLeaseMs),
  });
  const { first, place } = await opening().catch(async (err: unknown) => {
    await unlisten();
    throw err;
  });
  if (!place) {
    await unlisten();
    throw new DomainError(
      "RATE_LIMITED",
      `At most ${limits.streamsPerAccount} event streams may be open per account.`,
      { limit: limits.streamsPerAccount },
      5,
    );
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    releaseStreamPlace(place).catch((err: unknown) =>
      log.warn("event stream place not released (its lease will lapse)", { jobId, err }),
    );
  };
  const encoder = new TextEncoder();

  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (text: string) => controller.enqueue(encoder.encode(text));
      let cursor = lastEventId;
      let lastStatus = "";
      let snapshot: { job: ExecutionJob; events: Awaited<ReturnType<typeof readJobProgress>>["events"] } | undefined =
        first;
      let checkedAt = Date.now();
      let sentAt = Date.now();
      try {
        send(`retry: 1000\n\n`);
        while (!signal.aborted) {
          if (!snapshot) {
            // Signals from here on are about what this read may not see; the first snapshot's are kept.
            dirty = false;
            snapshot = await readJobProgress(accountId, jobId, cursor);
          }
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
          if (Date.now() - checkedAt >= limits.streamCredentialRecheckMs) {
            checkedAt = Date.now();
            await renewStreamPlace(place, limits.streamLeaseMs);
            if (!(await credential.stillValid())) {
              send(
                frame("error", {
                  code: credential.code,
                  message: "The credential of this stream was revoked or has expired.",
                }),
              );
              break;
            }
          }
          if (dirty) continue;
          const idle = await new Promise<boolean>((resolve) => {
            const onAbort = () => wake?.();
            const timer = setTimeout(() => {
              signal.removeEventListener("abort", onAbort);
              resolve(true);
            }, limits.streamCredentialRecheckMs);
            wake = () => {
              clearTimeout(timer);
              signal.removeEventListener("abort", onAbort);
              resolve(false);
            };
            signal.addEventListener("abort", onAbort, { once: true });
          });
          wake = undefined;
          if (idle && Date.now() - sentAt >= keepAliveMs) {
            send(`: keep-alive\n\n`);
            sentAt = Date.now();
          }
        }
      } catch (err) {
        log.error("job event stream failed", { jobId, err });
      } finally {
        release();
        await unlisten();
        try {
          controller.close();
        } catch {
          // already closed by the client going away
        }
      }
    },
    async cancel() {
      release();
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
