// The wire between execution nodes and the coordinator (/api/nodes/…), shared by both ends.
import { z } from "zod";
import { logLevels } from "@/lib/contract/vocabulary";

export const RegisterNodeRequest = z
  .object({
    name: z.string().trim().min(1).max(80),
    region: z.string().trim().min(1).max(40).default("local"),
    serviceIds: z.array(z.string().min(1).max(100)).min(1).max(100),
    concurrency: z.number().int().min(1).max(256),
  })
  .strict();
export type NodeRegistration = z.infer<typeof RegisterNodeRequest>;

export const NodeSession = z
  .object({ nodeId: z.string(), leaseMs: z.number().int(), heartbeatIntervalMs: z.number().int() })
  .meta({ id: "NodeSession" });

export const HeartbeatRequest = z.object({ activeJobIds: z.array(z.string()).max(1024) }).strict();
export const HeartbeatResponse = z.object({ cancelJobIds: z.array(z.string()) }).meta({ id: "NodeHeartbeat" });

export const ClaimRequest = z
  .object({
    max: z.number().int().min(1).max(256),
    waitMs: z.number().int().min(0).max(25_000).default(0),
    /** The node runs what it claims at once: the claim also starts each job (EXECUTION_STARTED), one report less per job. */
    start: z.boolean().default(false),
  })
  .strict();
export const ClaimedJob = z
  .object({
    jobId: z.string(),
    attempt: z.number().int(),
    serviceId: z.string(),
    input: z.record(z.string(), z.unknown()),
    timeoutMs: z.number().int(),
    /** The W3C traceparent of the claim's span, when the coordinator traces: the node's execution continues it. */
    traceparent: z.string().optional(),
  })
  .meta({ id: "ClaimedJob" });
export type ClaimedJob = z.infer<typeof ClaimedJob>;
export const ClaimResponse = z.object({ jobs: z.array(ClaimedJob) }).meta({ id: "NodeClaim" });

// The jobs table keeps the attempt as a PostgreSQL integer: a larger one is a 400, not the database's 500.
const attempt = z.number().int().min(1).max(2_147_483_647);
export const StartRequest = z.object({ attempt }).strict();
/** What a node has to say about a running job; reports made while one is in flight travel together. */
const report = {
  progress: z.number().min(0).max(100).optional(),
  providerRequests: z.array(z.record(z.string(), z.unknown())).max(100).optional(),
  logs: z
    .array(z.object({ level: z.enum(logLevels), message: z.string().max(4000) }))
    .max(200)
    .optional(),
};
export const ProgressRequest = z.object({ attempt, ...report }).strict();
export type ProgressReport = Omit<z.infer<typeof ProgressRequest>, "attempt">;
export const CompleteRequest = z
  .object({
    attempt,
    result: z.object({ summary: z.string().max(2000), output: z.record(z.string(), z.unknown()) }),
    ...report,
  })
  .strict();
export const FailRequest = z
  .object({ attempt, code: z.string().min(1).max(80), message: z.string().max(2000), retryable: z.boolean() })
  .strict();
export type ExecutionFailure = Omit<z.infer<typeof FailRequest>, "attempt">;
export const ReleaseRequest = z.object({ attempt, reason: z.string().max(200).optional() }).strict();
