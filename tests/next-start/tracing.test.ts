// Traces as an operator receives them (CONTRACT §14): server.mjs with OTEL_EXPORTER_OTLP_ENDPOINT set exports to
// a local OTLP/HTTP receiver (JSON encoding), and so does a standalone node with the same variables. One trace
// per job: the submission (the API request's own server span, carrying the job's ids), the claim, the execution
// (on the standalone node or on the server's embedded node) and each webhook delivery, whose request carries the
// delivery span's traceparent; a submission with a traceparent continues the caller's trace.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUpDeveloper, type Developer } from "../support/developer";
import { eventually, waitForStatus, type JobView } from "../support/jobs";
import { startNextServer, tempDataDir, type NextServer } from "../support/next-server";
import { SpanKindOf, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver";
import { startNodeProcess, type Child } from "../support/processes";
import { eventsAt, startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

let otlp: OtlpReceiver;
let hooks: WebhookReceiver;
let server: NextServer;
let node: Child | undefined;
let dev: Developer;
let key: string;
let nodeId: string;
let nodeToken: string;
const cleanups: (() => unknown)[] = [];

const traceEnv = (endpoint: string) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
  // Spans leave within 100 ms rather than the default 5 s.
  OTEL_BSP_SCHEDULE_DELAY: "100",
});

beforeAll(async () => {
  [otlp, hooks] = await Promise.all([startOtlpReceiver(), startWebhookReceiver()]);
  const data = tempDataDir();
  cleanups.push(data.remove);
  server = await startNextServer({
    env: {
      DATA_DIR: data.dir,
      ...traceEnv(otlp.endpoint),
      // One embedded node for the network's jobs; a developer's own node for theirs.
      EMBEDDED_NODES: "1",
      WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
    },
  });
  dev = await signUpDeveloper(server.baseUrl);
  key = await dev.createApiKey();
  const endpoint = await dev.session("/api/developers/webhooks", {
    method: "POST",
    body: JSON.stringify({ url: hooks.url("/hooks"), events: ["job.completed"] }),
  });
  expect(endpoint.status).toBe(201);
  const created = await dev.session("/api/developers/nodes", {
    method: "POST",
    body: JSON.stringify({ name: "traced-laptop", serviceIds: ["token-count"] }),
  });
  expect(created.status).toBe(201);
  ({ nodeId, token: nodeToken } = (await created.json()) as { nodeId: string; token: string });
  node = await startNodeProcess(server.baseUrl, nodeToken, ["--services", "token-count"], traceEnv(otlp.endpoint));
}, 180_000);

afterAll(async () => {
  await node?.kill();
  await server?.stop("SIGKILL");
  await Promise.all([otlp?.close(), hooks?.close()]);
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function submit(placement: "own" | "network", headers: Record<string, string> = {}): Promise<JobView> {
  const res = await dev.withKey(key, "/api/marketplace/services/token-count/execute", {
    method: "POST",
    headers,
    body: JSON.stringify({ input: { text: `traced ${placement} job` }, placement }),
  });
  expect(res.status).toBe(202);
  const job = (await res.json()) as JobView;
  expect((await waitForStatus(dev, key, job.jobId)).status).toBe("completed");
  return job;
}

const submissionRoute = "POST /api/marketplace/services/{id}/execute";

/** The job's spans once its whole life has been exported: submission (its request), claim, execution and delivery. */
async function jobTrace(jobId: string) {
  const ofJob = () => otlp.spans.filter((s) => s.attributes["execution.job.id"] === jobId);
  const spans = await eventually(
    async () => ofJob(),
    (found) =>
      [submissionRoute, "claim job", "execute job", "deliver webhook"].every((n) => found.some((s) => s.name === n)),
    30_000,
  );
  const one = (name: string) => {
    const named = spans.filter((s) => s.name === name);
    expect(named, name).toHaveLength(1);
    return named[0] as ReceivedSpan;
  };
  // No span of its own: the submission is the request's server span.
  expect(otlp.spans.filter((s) => s.name === "submit job")).toEqual([]);
  return {
    spans,
    serverSpan: one(submissionRoute),
    claim: one("claim job"),
    execution: one("execute job"),
    delivery: one("deliver webhook"),
  };
}

/** The job.completed delivery the receiver got for the job. */
const deliveryOf = (jobId: string) =>
  eventually(
    async () =>
      eventsAt(hooks, "/hooks").find((e) => (e.event.data.job as { jobId?: string } | undefined)?.jobId === jobId),
    (found) => found !== undefined,
  );

describe("traces, with OTEL_EXPORTER_OTLP_ENDPOINT set", () => {
  it("join a job run by a standalone node into one trace: submission, claim, execution, delivery", async () => {
    const job = await submit("own");
    const { spans, serverSpan, claim, execution, delivery } = await jobTrace(job.jobId);

    // The submission is the API request's server span, named by its declared route, with the HTTP semantic
    // conventions and the job's ids.
    expect(serverSpan).toMatchObject({
      name: submissionRoute,
      kind: SpanKindOf.server,
      parentSpanId: undefined,
      attributes: {
        "http.request.method": "POST",
        "http.route": "/api/marketplace/services/{id}/execute",
        "http.response.status_code": 202,
        "execution.job.id": job.jobId,
        "execution.service.id": "token-count",
      },
      resource: { "service.name": "execution-network" },
    });
    // One trace, each span under the one before it; the delivery under the submission.
    for (const span of spans) expect(span.traceId).toBe(serverSpan.traceId);
    expect(claim.parentSpanId).toBe(serverSpan.spanId);
    expect(execution.parentSpanId).toBe(claim.spanId);
    expect(delivery.parentSpanId).toBe(serverSpan.spanId);
    const ran = { "execution.job.id": job.jobId, "execution.service.id": "token-count", "execution.node.id": nodeId };
    expect(claim).toMatchObject({
      attributes: { ...ran, "execution.attempt": 1 },
      resource: { "service.name": "execution-network" },
    });
    // The execution is the standalone node's own span, exported by that process.
    expect(execution).toMatchObject({
      kind: SpanKindOf.consumer,
      attributes: { ...ran, "execution.attempt": 1 },
      resource: { "service.name": "execution-network-node" },
    });
    // The node's completion report is a request in the same trace, under its execution.
    const report = otlp.spans.find(
      (s) => s.attributes["http.route"] === "/api/nodes/jobs/{jobId}/complete" && s.traceId === execution.traceId,
    );
    expect(report?.parentSpanId).toBe(execution.spanId);

    // The receiver got the delivery span's context.
    const received = await deliveryOf(job.jobId);
    expect(received?.headers.traceparent).toBe(`00-${delivery.traceId}-${delivery.spanId}-01`);
    expect(delivery).toMatchObject({ kind: SpanKindOf.client, attributes: { "http.response.status_code": 200 } });
  });

  it("continue the caller's trace when the submission carries a traceparent, on the server's embedded node too", async () => {
    const callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
    const callerSpan = "00f067aa0ba902b7";
    const job = await submit("network", { traceparent: `00-${callerTrace}-${callerSpan}-01` });
    const { spans, serverSpan, claim, execution } = await jobTrace(job.jobId);

    expect(serverSpan).toMatchObject({ traceId: callerTrace, parentSpanId: callerSpan, kind: SpanKindOf.server });
    for (const span of spans) expect(span.traceId).toBe(callerTrace);
    expect(execution.parentSpanId).toBe(claim.spanId);
    // The embedded node runs in the server, whose SDK exports its execution.
    expect(execution.resource["service.name"]).toBe("execution-network");
    expect(execution.attributes["execution.node.id"]).not.toBe(nodeId);
    expect((await deliveryOf(job.jobId))?.headers.traceparent).toMatch(
      new RegExp(`^00-${callerTrace}-[0-9a-f]{16}-01$`),
    );
  });

  it("carry no key, token, wallet address or input in anything exported, nor Next.js's own spans", async () => {
    const exported = otlp.bodies.join("\n");
    expect(exported.length).toBeGreaterThan(0);
    for (const secret of [key, nodeToken, dev.address, dev.address.toLowerCase(), "traced own job"]) {
      expect(exported).not.toContain(secret);
    }
    expect(otlp.spans.filter((s) => s.scope === "next.js")).toEqual([]);
    expect(otlp.spans.every((s) => !("process.command_args" in s.resource))).toBe(true);
  });
});
