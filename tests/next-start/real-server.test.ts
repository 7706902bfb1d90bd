// The real server: server.mjs on the production build (the server's edge, instrumentation, routing,
// compression and the external packages as deployed), on the embedded database and on PostgreSQL. The integration suites use
// the lighter test router (tests/support/test-server.ts); this suite checks what only Next itself does.
// Without the OTEL_EXPORTER_OTLP_* variables (CONTRACT §14: "no exporter and no cost"), neither the server nor
// a standalone node loads anything of the OpenTelemetry SDK: a preloaded hook lists every module each loaded.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalog, type ServiceId } from "@/lib/domain/catalog";
import { limits } from "@/lib/limits";
import {
  startOpenAiCompatibleServer,
  type OpenAiCompatibleServer,
} from "@/lib/network/providers/testing/openai-compatible-server";
import { renderTextImage } from "@/lib/network/providers/testing/text-image";
import { signUpDeveloper, type Developer } from "../support/developer";
import { describeHttpAsNextServesIt, ratePerMinute } from "../support/next-http-spec";
import { eventually, execute, getJob, submit, telemetry, typesOf, waitForStatus } from "../support/jobs";
import { startNextServer, tempDataDir, type NextServer } from "../support/next-server";
import { createScratchDatabase } from "../support/postgres";
import { startChild, startNodeProcess } from "../support/processes";
import { startRpcProxy } from "../support/rpc-proxy";
import { readEventStream } from "../support/sse";

const llmKey = "sk-next-start";

/** One input per service of the catalog, each with what its result must say. */
const samples: Record<ServiceId, { input: () => Promise<Record<string, unknown>>; output: Record<string, unknown> }> = {
  "text-sentiment": {
    input: async () => ({ text: "What a wonderful, friendly and delightful place this is!" }),
    output: { label: "positive" },
  },
  "text-summarize": {
    input: async () => ({
      text: "Bees pollinate crops. Farmers rent hives in spring. Colonies have suffered losses lately.",
      sentences: 1,
    }),
    output: { sentenceCount: 3 },
  },
  "language-detect": {
    input: async () => ({
      text: "Der Zug hatte wegen einer Signalstörung fast eine Stunde Verspätung, und die Fahrgäste warteten geduldig auf dem Bahnsteig.",
    }),
    output: { iso6391: "de" },
  },
  "token-count": { input: async () => ({ text: "hello world", model: "gpt-4o" }), output: { tokens: 2 } },
  "image-ocr": {
    input: async () => ({ image: (await renderTextImage(["Served by next start"])).toString("base64") }),
    output: { text: "Served by next start" },
  },
  "text-generate": { input: async () => ({ prompt: "Say hello to the real server" }), output: {} },
};

/** The modules a process loaded, listed at its clean exit into `file` (tests/support/loaded-modules.mjs). */
const listingModules = (file: string) => ({
  NODE_OPTIONS: `--import=${path.resolve(__dirname, "../support/loaded-modules.mjs")}`,
  LOADED_MODULES_FILE: file,
});
const sdkModules = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((m) => /@opentelemetry[\\/](sdk|exporter|otlp)/.test(m));
/** The test runner's own variables must not switch tracing on in a process this suite starts. */
const untraced = { OTEL_EXPORTER_OTLP_ENDPOINT: "", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "" };

const drivers = [
  { name: "the embedded database", postgres: false },
  // vitest.config.mts sets TEST_DATABASE_URL whenever PostgreSQL answers (and fails CI when it does not).
  ...(process.env.TEST_DATABASE_URL ? [{ name: "PostgreSQL", postgres: true }] : []),
];

describe.each(drivers)("the real server on $name", ({ postgres }) => {
  let llm: OpenAiCompatibleServer;
  let server: NextServer;
  let dev: Developer;
  let env: Record<string, string>;
  const cleanups: (() => unknown)[] = [];
  const lists = mkdtempSync(path.join(tmpdir(), "en-loaded-"));
  cleanups.push(() => rmSync(lists, { recursive: true, force: true }));
  const listOf = (name: "server" | "node") => path.join(lists, `${name}.txt`);

  beforeAll(async () => {
    llm = await startOpenAiCompatibleServer({ apiKey: llmKey });
    cleanups.push(() => llm.close());
    const data = tempDataDir();
    cleanups.push(data.remove);
    const database = postgres ? await createScratchDatabase() : undefined;
    if (database) cleanups.push(database.drop);
    env = {
      DATA_DIR: data.dir,
      ...(database ? { DATABASE_URL: database.url } : {}),
      LLM_BASE_URL: llm.baseUrl,
      LLM_API_KEY: llmKey,
      LLM_MODEL: "acme-chat-1",
      STARTER_CREDITS: "500",
      RATE_LIMIT_PER_MINUTE: String(ratePerMinute),
      NODE_LEASE_MS: "2000",
      EMBEDDED_NODE_CONCURRENCY: "4",
      ...untraced,
    };
    // Only the first server lists its modules: it stops with SIGTERM (the list is written at a clean exit).
    server = await startNextServer({ env: { ...env, ...listingModules(listOf("server")) } });
    dev = await signUpDeveloper(server.baseUrl);
  }, 180_000);

  afterAll(async () => {
    await server?.stop("SIGKILL");
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it("lists exactly the services this suite has an input for", async () => {
    const res = await fetch(`${server.baseUrl}/api/marketplace/services`);
    const services = (await res.json()) as { serviceId: string }[];
    expect(services.map((s) => s.serviceId).sort()).toEqual(Object.keys(samples).sort());
  });

  // server.mjs makes its own http.Server: the edge handed over to it sets its idle timeout (lib/http/server-edge.ts).
  it("keeps idle keep-alive connections longer than clients and proxies keep theirs, and says so", async () => {
    const res = await fetch(`${server.baseUrl}/api/marketplace/services`);
    await res.arrayBuffer();
    expect(res.headers.get("keep-alive")).toBe(`timeout=${limits.idleConnectionMs / 1000}`);
  });

  // A submission is answered beside Next.js's router (lib/http/direct-routes.ts) by its route's own handler: the
  // contract's answer and headers (compressed as Next.js compresses), sent whole with its length, where a route
  // Next.js serves streams in chunks.
  it("answers a submission beside Next.js's router, with the contract's answer and headers", async () => {
    const key = await dev.createApiKey();
    // A caller's trace context: with tracing off it is ignored (the SDK stays unloaded: the last test but one).
    const submitted = await execute(
      dev,
      key,
      "token-count",
      { text: "served directly" },
      { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" },
    );
    const body = Buffer.from(await submitted.clone().arrayBuffer());
    expect(submitted.status).toBe(202);
    const job = (await submitted.json()) as { jobId: string; status: string };
    expect(job.status).toBe("queued");
    expect(Object.fromEntries(submitted.headers)).toMatchObject({
      "content-type": "application/json",
      location: `/api/developers/jobs/${job.jobId}`,
      "x-request-id": expect.stringMatching(/\S/),
      "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
      "x-content-type-options": "nosniff",
      "ratelimit-limit": String(ratePerMinute),
      "content-length": String(body.byteLength),
      vary: "Accept-Encoding",
    });
    expect(submitted.headers.get("transfer-encoding")).toBeNull();
    // The answer echoes the input: a large one is gzipped for a client that takes it, as Next.js compresses.
    const large = await execute(
      dev,
      key,
      "token-count",
      { text: "many words ".repeat(200) },
      { "accept-encoding": "gzip" },
    );
    expect(large.status).toBe(202);
    expect(large.headers.get("content-encoding")).toBe("gzip");
    expect((await large.json()).input.text).toBe("many words ".repeat(200));

    const read = await dev.withKey(key, `/api/developers/jobs/${job.jobId}`);
    expect(read.status).toBe(200);
    expect(read.headers.get("transfer-encoding")).toBe("chunked");
  });

  // On the embedded database a key's rate is counted in memory: one count per process, shared by the direct routes
  // (loaded at start-up) and the routes Next.js serves, though each has its own copy of the module.
  it("counts a key's requests once, whichever router answers them", async () => {
    const key = await dev.createApiKey();
    const requests = [
      () => execute(dev, key, "token-count", { text: "counted once" }),
      () => dev.withKey(key, "/api/developers/jobs?limit=1"),
      () => execute(dev, key, "token-count", { text: "counted twice" }),
      () => dev.withKey(key, "/api/credits/balance"),
    ];
    const remaining: (string | null)[] = [];
    for (const request of requests) remaining.push((await request()).headers.get("ratelimit-remaining"));
    expect(remaining).toEqual([1, 2, 3, 4].map((n) => String(ratePerMinute - n)));
  });

  it.each(catalog.map((s) => s.serviceId))(
    "runs a %s job end to end: submit → SSE → completed → telemetry",
    async (serviceId) => {
      const key = await dev.createApiKey();
      const sample = samples[serviceId];
      const job = await submit(dev, key, serviceId, await sample.input());
      expect(job.status).toBe("queued");

      const stream = await dev.withKey(key, `/api/developers/jobs/${job.jobId}/events`);
      expect(stream.status).toBe(200);
      expect(stream.headers.get("content-type")).toContain("text/event-stream");
      const messages = await readEventStream(stream);
      expect(messages.filter((m) => m.event === "status").at(-1)?.data.status).toBe("completed");
      const streamed = messages.filter((m) => m.event === "telemetry").map((m) => m.data.type);

      const done = await getJob(dev, key, job.jobId);
      expect(done, JSON.stringify(done.error)).toMatchObject({
        status: "completed",
        progress: 100,
        attempt: 1,
        error: null,
      });
      expect(done.result?.summary).toEqual(expect.stringMatching(/\S/));
      expect(done.result?.output).toMatchObject(sample.output);

      const events = await telemetry(dev, key, job.jobId);
      expect(streamed).toEqual(events.map((e) => e.type));
      expect(typesOf(events)).toEqual([
        "JOB_CREATED",
        "WORKFLOW_INITIALIZED",
        "ROUTING_STARTED",
        "NODE_ASSIGNED",
        "EXECUTION_STARTED",
        "RESULT_STORED",
        "EXECUTION_COMPLETED",
      ]);
    },
  );

  // An embedded node's identity is host, port and slot, so two instances on one host and database never share
  // one (each would re-issue the other's token). `server.mjs -p` with no PORT in the environment, as here:
  // server.mjs sets PORT to the port it listens on before the server's start-up reads the configuration.
  it("names its embedded node after the port it listens on, given by -p alone", async () => {
    const key = await dev.createApiKey();
    const job = await submit(dev, key, "token-count", { text: "which node?" });
    await waitForStatus(dev, key, job.jobId);
    const assigned = (await telemetry(dev, key, job.jobId)).find((e) => e.type === "NODE_ASSIGNED");
    expect(assigned?.data?.name).toBe(`embedded-${hostname()}-${server.port}-1`);
  });

  // A network node run as its own process reports over HTTP to route handlers, which the production build bundles
  // apart from the embedded node's start-up code. Results of both go through one completion lane per process,
  // made by whichever copy of the engine wrote first: here the embedded node's.
  it("a network node of its own process completes a job while the embedded node is busy, and a late report is refused", async () => {
    // Read through the session, whose rate is the account's: the suite's per-key rate is a few requests a minute.
    const jobOf = async (jobId: string) =>
      (await (await dev.session(`/api/developers/jobs/${jobId}`)).json()) as { status: string; result: unknown };
    const reaches = (jobId: string, statuses: string[]) =>
      eventually(
        () => jobOf(jobId),
        (j) => statuses.includes(j.status),
      );
    const final = ["completed", "failed"];
    const key = await dev.createApiKey();
    const first = await submit(dev, key, "token-count", { text: "counted here" });
    expect(await reaches(first.jobId, final)).toMatchObject({ status: "completed" });

    llm.behave({ reply: "slow", delayMs: 120_000 });
    const holdingKey = await dev.createApiKey();
    const slots = Number(env.EMBEDDED_NODE_CONCURRENCY);
    const holding = await Promise.all(
      Array.from({ length: slots }, (_, i) =>
        submit(dev, holdingKey, "text-generate", { prompt: `holding slot ${i + 1}` }),
      ),
    );
    for (const job of holding) await reaches(job.jobId, ["running"]);

    const issued = await startChild("scripts/node-token.ts", ["network-node", "--region", "dc"], {
      DATA_DIR: env.DATA_DIR,
      ...(env.DATABASE_URL ? { DATABASE_URL: env.DATABASE_URL } : {}),
    });
    const token = String(issued.ready.token);
    const nodeArgs = ["--name", "network-node", "--services", "token-count", "--grace-ms", "100"];
    const node = await startNodeProcess(server.baseUrl, token, nodeArgs, {
      ...untraced,
      ...listingModules(listOf("node")),
    });
    try {
      const job = await submit(dev, key, "token-count", { text: "counted elsewhere" });
      expect(await reaches(job.jobId, final)).toMatchObject({
        status: "completed",
        result: { output: { tokens: expect.any(Number) } },
      });
      const events = (await (await dev.session(`/api/developers/jobs/${job.jobId}/telemetry?limit=100`)).json()) as {
        data: { type: string; data?: Record<string, unknown> }[];
      };
      expect(events.data.find((e) => e.type === "NODE_ASSIGNED")?.data?.name).toBe("network-node");

      const late = await fetch(`${server.baseUrl}/api/nodes/jobs/${job.jobId}/complete`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ attempt: 1, result: { summary: "again", output: {} } }),
      });
      expect(late.status).toBe(409);
      expect(await late.json()).toMatchObject({ error: { code: "LEASE_LOST" } });
    } finally {
      // SIGTERM: the node exits on its own, and lists what it loaded.
      await node.kill("SIGTERM");
      llm.behave({ reply: "normal" });
      for (const job of holding) await dev.session(`/api/developers/jobs/${job.jobId}/cancel`, { method: "POST" });
    }
  });

  it("SIGTERM with a job in flight: the server exits, and after a restart the job completes exactly once", async () => {
    llm.behave({ reply: "slow", delayMs: 120_000 });
    const key = await dev.createApiKey();
    const job = await submit(dev, key, "text-generate", { prompt: "Still running when the server stops" });
    await waitForStatus(dev, key, job.jobId, ["running"]);

    const stopped = Date.now();
    await server.stop("SIGTERM");
    // The embedded node's grace period is 10 s: the process must be gone well within it plus shutdown.
    expect(Date.now() - stopped).toBeLessThan(20_000);
    expect(server.output()).not.toMatch(/unhandled error|shutdown failed/);

    llm.behave({ reply: "normal" });
    server = await startNextServer({ env, port: server.port });
    const done = await waitForStatus(dev, key, job.jobId);
    expect(done).toMatchObject({ status: "completed", attempt: 2, progress: 100 });
    const events = await telemetry(dev, key, job.jobId);
    expect(events.filter((e) => e.type === "EXECUTION_COMPLETED")).toHaveLength(1);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
  });

  // The jobs above ran on the embedded node and on a standalone one; a submission carried a traceparent.
  it("loads nothing of the OpenTelemetry SDK without the OTEL_EXPORTER_OTLP_* variables, in the server or a node", () => {
    for (const name of ["server", "node"] as const) {
      expect(existsSync(listOf(name)), name).toBe(true);
      // The list is real: it holds what the process did load.
      expect(readFileSync(listOf(name), "utf8")).toContain(name === "server" ? "next" : "tsx");
      expect(sdkModules(listOf(name)), name).toEqual([]);
    }
  });

  // On SIGTERM the server stops taking connections, then the embedded node drains and releases what is left
  // (lib/serving.ts), before the database closes.
  it("SIGTERM releases the running job (ROUTING_STARTED with releasedBy), it is not lost (NODE_LOST)", async () => {
    const key = await dev.createApiKey();
    const { data } = (await (
      await dev.withKey(key, "/api/developers/jobs?serviceId=text-generate&limit=100")
    ).json()) as { data: { jobId: string; attempt: number }[] };
    const restarted = data.find((j) => j.attempt === 2);
    expect(restarted).toBeDefined();
    const events = await telemetry(dev, key, String(restarted?.jobId));
    expect(events.map((e) => e.type)).not.toContain("NODE_LOST");
    expect(events.some((e) => e.type === "ROUTING_STARTED" && e.data?.releasedBy)).toBe(true);
  });
});

describeHttpAsNextServesIt(
  "server.mjs",
  async (env) => {
    const data = tempDataDir();
    const server = await startNextServer({ env: { DATA_DIR: data.dir, ...env } });
    return {
      baseUrl: server.baseUrl,
      close: async () => {
        await server.stop("SIGKILL");
        data.remove();
      },
    };
  },
  { compression: true },
);

// The payment watcher runs in the copy of the code the server starts with, /api/health in a route's copy: what the
// watcher learns of the RPC must reach the health route all the same.
describe("the real server with the payments RPC down", () => {
  it("says payments are degraded in /api/health, and serves meanwhile", async () => {
    const rpc = await startRpcProxy("http://127.0.0.1:9");
    rpc.setDown(true);
    const data = tempDataDir();
    const server = await startNextServer({
      env: {
        DATA_DIR: data.dir,
        PAYMENTS_RPC_URL: rpc.url,
        PAYMENTS_CHAIN_ID: "31337",
        PAYMENTS_TOKEN_ADDRESS: `0x${"11".repeat(20)}`,
        PAYMENTS_TREASURY_ADDRESS: `0x${"22".repeat(20)}`,
        CREDITS_PER_TOKEN: "100",
        PAYMENTS_POLL_MS: "200",
      },
    });
    try {
      const health = await eventually(
        async () => (await (await fetch(`${server.baseUrl}/api/health`)).json()) as { payments?: string },
        (h) => h.payments === "degraded",
        20_000,
      );
      expect(health).toMatchObject({ status: "ok", database: "ok", payments: "degraded" });
      expect((await fetch(`${server.baseUrl}/api/marketplace/services`)).status).toBe(200);
    } finally {
      await server.stop("SIGKILL");
      data.remove();
      await rpc.close();
    }
  });
});
