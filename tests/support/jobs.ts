// Job helpers for tests: submit, and wait for a state by polling with backoff (never a fixed sleep).
import type { Developer } from "./developer";

/** The members of an ExecutionJob (CONTRACT §5). */
export const executionJobFields = [
  "jobId",
  "workflowRunId",
  "serviceId",
  "status",
  "progress",
  "input",
  "creditCost",
  "placement",
  "attempt",
  "maxAttempts",
  "assignedNode",
  "result",
  "error",
  "createdAt",
  "updatedAt",
  "startedAt",
  "completedAt",
];

export interface JobView {
  jobId: string;
  workflowRunId: string;
  serviceId: string;
  status: string;
  progress: number;
  attempt: number;
  maxAttempts: number;
  creditCost: number;
  assignedNode: { nodeId: string; name: string; region: string; assignedAt: string } | null;
  result: { summary: string; output: Record<string, unknown> } | null;
  error: { category: string; code: string; message: string } | null;
  [k: string]: unknown;
}

export interface TelemetryView {
  sequence: number;
  type: string;
  attempt: number;
  nodeId?: string;
  data?: Record<string, unknown>;
}

export async function execute(
  dev: Developer,
  key: string,
  serviceId: string,
  input: unknown,
  headers: Record<string, string> = {},
) {
  return dev.withKey(key, `/api/marketplace/services/${serviceId}/execute`, {
    method: "POST",
    body: JSON.stringify({ input }),
    headers,
  });
}

export async function submit(dev: Developer, key: string, serviceId: string, input: unknown): Promise<JobView> {
  const res = await execute(dev, key, serviceId, input);
  if (res.status !== 202) throw new Error(`submit failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as JobView;
}

export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let delay = 10;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`condition not reached in ${timeoutMs} ms; last value: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(250, delay * 2);
  }
}

export async function getJob(dev: Developer, key: string, jobId: string): Promise<JobView> {
  return (await (await dev.withKey(key, `/api/developers/jobs/${jobId}`)).json()) as JobView;
}

export function waitForStatus(
  dev: Developer,
  key: string,
  jobId: string,
  statuses = ["completed", "failed"],
  timeoutMs?: number,
) {
  return eventually(
    () => getJob(dev, key, jobId),
    (job) => statuses.includes(job.status),
    timeoutMs,
  );
}

export async function telemetry(dev: Developer, key: string, jobId: string): Promise<TelemetryView[]> {
  const res = await dev.withKey(key, `/api/developers/jobs/${jobId}/telemetry?limit=100`);
  return ((await res.json()) as { data: TelemetryView[] }).data;
}

export const typesOf = (events: TelemetryView[]) => events.map((e) => e.type).filter((t) => t !== "PROVIDER_REQUEST");
