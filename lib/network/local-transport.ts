// In-process transport for embedded nodes: direct calls into the coordinator and the engine.
import { DomainError } from "@/lib/domain/errors";
import { claimJobs } from "@/lib/engine/claims";
import * as reports from "@/lib/engine/node-reports";
import * as coordinator from "./coordinator";
import type { NodeRow } from "./coordinator";
import { JobRevokedError, type CoordinatorTransport } from "./transport";

async function revoking<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof DomainError && error.code === "LEASE_LOST") {
      throw new JobRevokedError(error.code, error.message);
    }
    throw error;
  }
}

export function localTransport(token: string): CoordinatorTransport {
  let node: NodeRow | undefined;
  const self = async () => (node ??= await coordinator.authenticateNode(token));
  return {
    // A node in the server process starts what it claims at once: one statement less per job.
    startsOnClaim: true,
    async register(registration) {
      const authenticated = await coordinator.authenticateNode(token);
      const session = await coordinator.registerNode(authenticated, registration);
      node = { ...authenticated, ...registration };
      return session;
    },
    heartbeat: async (ids) => coordinator.heartbeat(await self(), ids),
    claim: async (max, waitMs, signal) => claimJobs(await self(), max, waitMs, signal, { start: true }),
    start: async (jobId, attempt) => revoking(async () => reports.startExecution(await self(), jobId, attempt)),
    progress: async (jobId, attempt, report) =>
      revoking(async () => reports.reportProgress(await self(), jobId, attempt, report)),
    complete: async (jobId, attempt, result, report) =>
      revoking(async () => reports.completeExecution(await self(), jobId, attempt, result, report)),
    fail: async (jobId, attempt, failure) =>
      revoking(async () => reports.failExecution(await self(), jobId, attempt, failure)),
    release: async (jobId, attempt, reason) =>
      revoking(async () => reports.releaseJob(await self(), jobId, attempt, reason)),
    drain: async () => coordinator.drainNode(await self()),
    stop: async () => coordinator.stopNode(await self()),
  };
}
