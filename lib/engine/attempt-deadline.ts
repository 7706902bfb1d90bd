// An attempt's lease and deadline, on their own: the job change's computed values (job-change.ts) and the attempts
// (attempts.ts) both read them, and job-change.ts cannot import attempts.ts (which imports it).
import { sql, type SQL } from "drizzle-orm";
import { jobs } from "@/lib/db/schema";
import { env } from "@/lib/env";

export const leaseMs = () => env().NODE_LEASE_MS;

// An attempt's deadline: its timeout from its assignment, plus one lease of grace for the node to say it timed
// out itself. A developer's node's leases are never renewed past it (node-reports.ts, renewLeases), so its lease
// runs out there, and an attempt whose lease ran out at or past its deadline timed out (lost-jobs.ts).
const graceSeconds = () => leaseMs() / 1000;
/** `grace`, in seconds: bound as the lease's own seconds by a prepared job change, whose text holds no value. */
export const attemptDeadlineSql = (grace: SQL | number = graceSeconds()) =>
  sql`${jobs.assignedAt} + make_interval(secs => ${jobs.timeoutMs} / 1000.0 + ${grace})`;
