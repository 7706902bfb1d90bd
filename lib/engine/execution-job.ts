// A job as developers see it (the contract's ExecutionJob), written once in TypeScript for reads and once
// in SQL for the webhook events a change writes in its own statement; engine-job-views.test.ts checks that
// the two agree.
import { sql, type SQL } from "drizzle-orm";
import type { ExecutionJob } from "@/lib/contract/schemas";
import type { JobRow } from "./job-change";

export type NodeInfo = { name: string; region: string } | null;

export function toExecutionJob(row: JobRow, node: NodeInfo): ExecutionJob {
  return {
    jobId: row.id,
    workflowRunId: row.workflowRunId,
    serviceId: row.serviceId,
    status: row.status,
    progress: row.progress,
    input: row.input,
    creditCost: row.creditCost,
    placement: row.placement,
    attempt: row.attempt,
    maxAttempts: row.maxAttempts,
    assignedNode:
      row.assignedNodeId && row.assignedAt && node
        ? { nodeId: row.assignedNodeId, name: node.name, region: node.region, assignedAt: row.assignedAt.toISOString() }
        : null,
    result: row.result ?? null,
    error: row.error ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    completedAt: row.completedAt?.toISOString() ?? null,
  };
}

/** An ISO-8601 UTC time with milliseconds, exactly as Date#toISOString writes it (both truncate); null stays null. */
export const isoSql = (column: SQL) => sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * toExecutionJob in SQL, as JSON: `job` is a relation with the jobs table's columns, `node` one with the
 * nodes table's (left-joined on the assigned node), and `status` the status to show (a change that passes
 * a status on its way shows it as it was then).
 */
export function executionJobSql(job: SQL, node: SQL, status: SQL): SQL {
  const c = (column: string) => sql`${job}.${sql.raw(column)}`;
  return sql`json_build_object(
    'jobId', ${c("id")}, 'workflowRunId', ${c("workflow_run_id")}, 'serviceId', ${c("service_id")}, 'status', ${status},
    'progress', ${c("progress")}, 'input', ${c("input")}, 'creditCost', ${c("credit_cost")}, 'placement', ${c("placement")},
    'attempt', ${c("attempt")},
    'maxAttempts', ${c("max_attempts")},
    'assignedNode', case when ${c("assigned_node_id")} is not null and ${c("assigned_at")} is not null and ${node}.id is not null
      then json_build_object('nodeId', ${c("assigned_node_id")}, 'name', ${node}.name, 'region', ${node}.region,
                             'assignedAt', ${isoSql(c("assigned_at"))}) end,
    'result', ${c("result")}, 'error', ${c("error")}, 'createdAt', ${isoSql(c("created_at"))},
    'updatedAt', ${isoSql(c("updated_at"))}, 'startedAt', ${isoSql(c("started_at"))},
    'completedAt', ${isoSql(c("completed_at"))})`;
}
