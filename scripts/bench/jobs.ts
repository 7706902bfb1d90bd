// Jobs through the public API: submission at a steady rate or as a burst, waiting for them to finish, and
// their timings read back from each job's telemetry (timestamps written by the database).
import type { ServerUnderTest } from "./server";
import http from "node:http";
import { setTimeout as sleep } from "node:timers/promises";

export const serviceId = "token-count";

const sentence = "Execution nodes claim queued jobs, run them and report telemetry back to the coordinator.";

/** A short, distinct text per job (nothing can be cached across jobs). */
export const jobInput = (i: number) => ({ text: `${sentence} Job ${i}: ${sentence.split(" ").reverse().join(" ")}` });

export interface Submitted {
  jobId: string;
  /** Client-side round trip of the POST, ms. */
  submitMs: number;
}

/**
 * The load generator's HTTP client: node:http on kept-alive connections, one agent per server. It shares the
 * machine's cores with the server and PostgreSQL, and fetch (undici, with WHATWG streams on both sides of
 * each request) took 1.6–1.8× its CPU per job in rounds of 300 jobs (`--client fetch` submits with fetch instead).
 */
const agents = new Map<string, http.Agent>();
const agentFor = (origin: string) => {
  let agent = agents.get(origin);
  if (!agent) agents.set(origin, (agent = new http.Agent({ keepAlive: true })));
  return agent;
};

/** POSTs `body` as JSON with node:http; resolves with the status and the parsed JSON answer. */
export function postJson(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; body: unknown }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      target,
      {
        method: "POST",
        agent: agentFor(target.origin),
        headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
          } catch (error) {
            reject(error);
          }
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** The same POST through fetch, as an app using the platform's HTTP client would send it. */
async function postJsonWithFetch(url: string, headers: Record<string, string>, body: string) {
  const res = await fetch(url, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body });
  return { status: res.status, body: (await res.json()) as unknown };
}

/** The client the load generator submits with: node:http, or fetch after `--client fetch`. */
let post = postJson;
export const useFetchClient = () => void (post = postJsonWithFetch);

/** Submits job `i` to the server at `baseUrl` (any instance sharing the database) with an API key. */
export async function submitJobTo(
  baseUrl: string,
  apiKey: string,
  i: number,
  serviceAndInput: [string, unknown] = [serviceId, jobInput(i)],
): Promise<Submitted> {
  const [service, input] = serviceAndInput;
  const started = performance.now();
  const res = await post(
    `${baseUrl}/api/marketplace/services/${service}/execute`,
    { "x-api-key": apiKey },
    JSON.stringify({ input }),
  );
  const body = res.body as { jobId?: string };
  if (res.status !== 202 || !body.jobId) throw new Error(`submission failed: ${res.status} ${JSON.stringify(body)}`);
  return { jobId: body.jobId, submitMs: performance.now() - started };
}

export const submitJob = (server: ServerUnderTest, i: number) => submitJobTo(server.baseUrl, server.apiKey, i);

/**
 * Issue 11's defect 3: the largest text-summarize input (20,000 characters) as ~5,000 tiny sentences, the
 * worst case for its ranking; it must not stall the server's HTTP while it runs.
 */
export const worstCaseSummarize: [string, unknown] = ["text-summarize", { text: "Go. ".repeat(5_000).trim() }];

/**
 * Open loop: submission i leaves at start + i/rate whatever the previous ones are doing, so a slow
 * answer does not lower the offered rate.
 */
export async function submitSteadily<T>(
  rate: number,
  count: number,
  submitOne: (i: number) => Promise<T>,
): Promise<T[]> {
  const start = performance.now();
  const pending: Promise<T>[] = [];
  for (let i = 0; i < count; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    pending.push(submitOne(i));
  }
  return Promise.all(pending);
}

/** Closed loop: `concurrency` submitters, each sending its next job as soon as the last was answered. */
export async function submitBurst<T>(
  count: number,
  concurrency: number,
  submitOne: (i: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) results[i] = await submitOne(i);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}

async function countWithStatus(server: ServerUnderTest, status: string): Promise<number> {
  const res = await server.developer.withKey(server.apiKey, `/api/developers/jobs?status=${status}&limit=1`);
  if (res.status !== 200) throw new Error(`job list failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { pagination: { total: number } }).pagination.total;
}

/** Polls the job list (with backoff) until `total` of the account's jobs are final. */
export async function waitUntilFinal(
  server: ServerUnderTest,
  total: number,
  timeoutMs: number,
): Promise<{ completed: number; failed: number }> {
  const deadline = Date.now() + timeoutMs;
  let delay = 20;
  for (;;) {
    const [completed, failed] = await Promise.all([
      countWithStatus(server, "completed"),
      countWithStatus(server, "failed"),
    ]);
    if (completed + failed >= total) return { completed, failed };
    if (Date.now() > deadline)
      throw new Error(`only ${completed + failed} of ${total} jobs finished within ${timeoutMs} ms`);
    await sleep(delay);
    delay = Math.min(250, delay * 2);
  }
}

export interface JobTimes {
  jobId: string;
  /** Epoch ms of each milestone, from the telemetry's timestamps. */
  created: number;
  assigned: number;
  started: number;
  completed: number;
  /** Wall time the provider reported for the job (PROVIDER_REQUEST latencyMs). */
  providerMs: number;
  ok: boolean;
}

interface TelemetryPage {
  data: { sequence: number; type: string; timestamp: string; data?: { latencyMs?: unknown } }[];
}

export async function readJobTimes(server: ServerUnderTest, jobId: string): Promise<JobTimes> {
  const res = await server.developer.withKey(server.apiKey, `/api/developers/jobs/${jobId}/telemetry?limit=100`);
  if (res.status !== 200) throw new Error(`telemetry of ${jobId} failed: ${res.status} ${await res.text()}`);
  const { data } = (await res.json()) as TelemetryPage;
  // The first event of each type: a retried job's overhead counts from creation to its first start.
  const at = (type: string) => Date.parse(data.find((e) => e.type === type)?.timestamp ?? "");
  return {
    jobId,
    created: at("JOB_CREATED"),
    assigned: at("NODE_ASSIGNED"),
    started: at("EXECUTION_STARTED"),
    completed: at("EXECUTION_COMPLETED"),
    providerMs: Number(data.find((e) => e.type === "PROVIDER_REQUEST")?.data?.latencyMs ?? Number.NaN),
    ok: data.some((e) => e.type === "EXECUTION_COMPLETED"),
  };
}

/** Reads every job's telemetry, `concurrency` requests at a time (after the measurement, not during it). */
export async function readAllJobTimes(server: ServerUnderTest, jobIds: string[], concurrency = 8): Promise<JobTimes[]> {
  return submitBurst(jobIds.length, concurrency, (i) => readJobTimes(server, jobIds[i]));
}
