// Webhook delivery latency: jobs submitted at a steady rate, every job.completed delivered to a receiver on
// 127.0.0.1; latency = the receiver's 200 minus the job's completedAt (same machine, same clock).
// Usage: DATABASE_URL=postgres://…/test npx tsx scripts/bench/webhooks.ts [--rate 50] [--jobs 1000] [--nodes 4]
import { flag } from "../cli";
import { startWebhookReceiver } from "@/tests/support/webhook-receiver";
import { submitJob, submitSteadily, waitUntilFinal } from "./jobs";
import { startServerUnderTest } from "./server";
import { summarize } from "./stats";

const rate = Number(flag("rate", "50"));
const total = Number(flag("jobs", "1000"));
const nodes = Number(flag("nodes", "4"));
const adminUrl = process.env.DATABASE_URL || undefined;
const progress = (message: string) => process.stderr.write(`[bench:webhooks] ${message}\n`);

async function main() {
  const acknowledgedAt = new Map<string, { completedAt: number; ackAt: number }>();
  const receiver = await startWebhookReceiver();
  const server = await startServerUnderTest({
    driver: adminUrl ? "postgres" : "pglite",
    adminUrl,
    embeddedNodes: nodes,
    env: { WEBHOOK_ALLOWED_HOSTS: "127.0.0.1", EMBEDDED_NODE_CONCURRENCY: "8" },
  });
  try {
    const res = await server.developer.session("/api/developers/webhooks", {
      method: "POST",
      body: JSON.stringify({ url: receiver.url("/hook"), events: ["job.completed"] }),
    });
    if (res.status !== 201) throw new Error(`endpoint registration failed: ${res.status} ${await res.text()}`);
    progress(`${adminUrl ? "postgres" : "pglite"}: ${total} jobs at ${rate}/s, ${nodes} embedded nodes`);
    await submitSteadily(rate, total, (i) => submitJob(server, i));
    const { completed, failed } = await waitUntilFinal(server, total, 300_000);
    // Every completed job's job.completed must arrive; jobs that failed to route are reported, not timed.
    const deadline = Date.now() + 120_000;
    while (receiver.received.length < completed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    for (const r of receiver.received) {
      const event = JSON.parse(r.body) as { data: { job: { jobId: string; completedAt: string } } };
      const id = event.data.job.jobId;
      if (!acknowledgedAt.has(id))
        acknowledgedAt.set(id, { completedAt: Date.parse(event.data.job.completedAt), ackAt: r.receivedAt });
    }
    const latencies = [...acknowledgedAt.values()].map((v) => v.ackAt - v.completedAt);
    const s = summarize(latencies);
    const result = {
      driver: adminUrl ? "postgres" : "pglite",
      rate,
      jobs: total,
      completed,
      failed,
      delivered: acknowledgedAt.size,
      requests: receiver.received.length,
      latencyMs: { p50: s.p50, p99: s.p99, avg: Math.round(s.avg), max: s.max },
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await server.stop();
    await receiver.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
