// How a node agent talks to the coordinator. The standalone node uses HTTP (/api/nodes/…); embedded
// nodes call the coordinator in-process. The agent's code is the same either way.
import type { ClaimedJob, ExecutionFailure, NodeRegistration, ProgressReport } from "@/lib/contract/node-protocol";

export interface NodeSessionInfo {
  nodeId: string;
  leaseMs: number;
  heartbeatIntervalMs: number;
}

export interface CoordinatorTransport {
  /** The coordinator starts (EXECUTION_STARTED) the jobs it hands out on claim: the node does not call start(). */
  readonly startsOnClaim?: boolean;
  register(registration: NodeRegistration): Promise<NodeSessionInfo>;
  heartbeat(activeJobIds: string[]): Promise<{ cancelJobIds: string[] }>;
  claim(max: number, waitMs: number, signal: AbortSignal): Promise<ClaimedJob[]>;
  start(jobId: string, attempt: number): Promise<void>;
  progress(jobId: string, attempt: number, report: ProgressReport): Promise<void>;
  complete(
    jobId: string,
    attempt: number,
    result: { summary: string; output: Record<string, unknown> },
    report?: ProgressReport,
  ): Promise<void>;
  fail(jobId: string, attempt: number, failure: ExecutionFailure): Promise<void>;
  release(jobId: string, attempt: number, reason: string): Promise<void>;
  drain(): Promise<void>;
  /** The node has stopped: it finished or released its jobs and sends nothing more until it registers again. */
  stop(): Promise<void>;
}

/** The coordinator refused a report: the node does not hold the job (it ended or moved on), so it stops it. */
export class JobRevokedError extends Error {
  constructor(
    readonly code: "JOB_FINAL" | "LEASE_LOST",
    message: string,
  ) {
    super(message);
    this.name = "JobRevokedError";
  }
}

/** The coordinator no longer accepts the node's token (revoked or rotated): nothing it sends will count. */
export class NodeTokenRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NodeTokenRefusedError";
  }
}
