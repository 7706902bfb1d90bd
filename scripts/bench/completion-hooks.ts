// `--webhook`: the drain with a job.completed endpoint registered on every server, so each completion is
// delivered, and (since issue 42) signs its job's receipt on the way, as `data.receipt`. One receiver on
// 127.0.0.1 answers 200 to every delivery; a drain is over once every job's job.completed has arrived.
import { startWebhookReceiver } from "@/tests/support/webhook-receiver";
import type { Developer } from "@/tests/support/developer";

export interface Delivered {
  /** The receiver's clock (this machine's, as the database's) when the last of the jobs' events arrived. */
  lastAt: number;
  /** How many of them carried `data.receipt`. */
  receipts: number;
}

export interface CompletionHooks {
  /** What a server needs to deliver to the receiver. */
  serverEnv: Record<string, string>;
  /** The developer's endpoint for job.completed, pointing at the receiver. */
  register(developer: Developer): Promise<void>;
  /**
   * Waits until job.completed has arrived for `expected` of `jobIds` (all but those that failed, which send
   * job.failed instead).
   */
  delivered(jobIds: string[], expected: number, timeoutMs: number): Promise<Delivered>;
  close(): Promise<void>;
}

export async function startCompletionHooks(): Promise<CompletionHooks> {
  const receiver = await startWebhookReceiver(() => ({ status: 200, body: "" }));
  // The first arrival of each job's event (a redelivery keeps the first), read from the receiver as it grows.
  const arrivals = new Map<string, { at: number; receipt: boolean }>();
  let read = 0;
  const readNew = () => {
    for (; read < receiver.received.length; read++) {
      const { body, receivedAt } = receiver.received[read];
      const event = JSON.parse(body) as { type?: string; data?: { job?: { jobId?: string }; receipt?: unknown } };
      const jobId = event.data?.job?.jobId;
      if (event.type === "job.completed" && jobId && !arrivals.has(jobId))
        arrivals.set(jobId, { at: receivedAt, receipt: event.data?.receipt !== undefined });
    }
  };
  return {
    serverEnv: { WEBHOOK_ALLOWED_HOSTS: "127.0.0.1" },
    async register(developer) {
      const res = await developer.session("/api/developers/webhooks", {
        method: "POST",
        body: JSON.stringify({ url: receiver.url("/completed"), events: ["job.completed"] }),
      });
      if (res.status !== 201)
        throw new Error(`webhook endpoint registration failed: ${res.status} ${await res.text()}`);
    },
    async delivered(jobIds, expected, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      let mine: { at: number; receipt: boolean }[];
      for (;;) {
        readNew();
        mine = jobIds.flatMap((id) => arrivals.get(id) ?? []);
        if (mine.length >= expected) break;
        if (Date.now() > deadline)
          throw new Error(`${expected - mine.length} of ${expected} job.completed events did not arrive`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return { lastAt: Math.max(0, ...mine.map((a) => a.at)), receipts: mine.filter((a) => a.receipt).length };
    },
    close: () => receiver.close(),
  };
}
