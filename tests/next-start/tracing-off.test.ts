// Without the OTEL_EXPORTER_OTLP_* variables (CONTRACT §14: "no exporter and no cost"): server.mjs and a
// standalone node run a job whose submission carries a traceparent, and neither process ever loads the
// OpenTelemetry SDK (every module each loaded is listed at exit by a preloaded hook); the webhook delivery goes
// without a traceparent.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUpDeveloper, type Developer } from "../support/developer";
import { eventually, waitForStatus, type JobView } from "../support/jobs";
import { startNextServer, tempDataDir, type NextServer } from "../support/next-server";
import { startNodeProcess, type Child } from "../support/processes";
import { eventsAt, startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

const listDir = mkdtempSync(path.join(tmpdir(), "en-loaded-"));
const listOf = (name: string) => path.join(listDir, `${name}.txt`);
const listingModules = (name: string) => ({
  NODE_OPTIONS: `--import=${path.resolve(__dirname, "../support/loaded-modules.mjs")}`,
  LOADED_MODULES_FILE: listOf(name),
});

let hooks: WebhookReceiver;
let server: NextServer;
let node: Child;
let dev: Developer;
let key: string;
const cleanups: (() => unknown)[] = [() => rmSync(listDir, { recursive: true, force: true })];

beforeAll(async () => {
  hooks = await startWebhookReceiver();
  const data = tempDataDir();
  cleanups.push(data.remove);
  server = await startNextServer({
    env: { DATA_DIR: data.dir, EMBEDDED_NODES: "0", WEBHOOK_ALLOWED_HOSTS: "127.0.0.1", ...listingModules("server") },
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
    body: JSON.stringify({ name: "untraced-laptop", serviceIds: ["token-count"] }),
  });
  const { token } = (await created.json()) as { token: string };
  // The test runner's own variables must not switch tracing on in the node.
  node = await startNodeProcess(server.baseUrl, token, ["--services", "token-count"], {
    OTEL_EXPORTER_OTLP_ENDPOINT: "",
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "",
    ...listingModules("node"),
  });
}, 180_000);

afterAll(async () => {
  await node?.kill();
  await server?.stop("SIGKILL");
  await hooks?.close();
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** The modules a process loaded, once it has exited cleanly. */
const loadedBy = (name: string) => readFileSync(listOf(name), "utf8").split("\n");
const sdkModules = (modules: string[]) => modules.filter((m) => /@opentelemetry[\\/](sdk|exporter|otlp)/.test(m));

describe("traces, with no OTEL_EXPORTER_OTLP_* variable", () => {
  it("are never set up: a traced caller's job runs, its delivery carries no traceparent, and no process loads the SDK", async () => {
    const res = await dev.withKey(key, "/api/marketplace/services/token-count/execute", {
      method: "POST",
      headers: { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" },
      body: JSON.stringify({ input: { text: "untraced" }, placement: "own" }),
    });
    expect(res.status).toBe(202);
    const { jobId } = (await res.json()) as JobView;
    expect((await waitForStatus(dev, key, jobId)).status).toBe("completed");
    const delivered = await eventually(
      async () =>
        eventsAt(hooks, "/hooks").find((e) => (e.event.data.job as { jobId?: string } | undefined)?.jobId === jobId),
      (found) => found !== undefined,
    );
    expect(delivered?.headers).not.toHaveProperty("traceparent");

    // A clean stop writes each process's list (SIGTERM: the process exits on its own).
    await Promise.all([node.kill("SIGTERM"), server.stop("SIGTERM")]);
    for (const name of ["server", "node"]) {
      expect(existsSync(listOf(name)), name).toBe(true);
      const modules = loadedBy(name);
      // The list is real: it holds what the process did load.
      expect(modules.some((m) => m.includes(name === "server" ? "next" : "tsx"))).toBe(true);
      expect(sdkModules(modules), name).toEqual([]);
    }
  });
});
