// Jobs as developers see them, every read scoped to the owner (another developer's job is not found): one
// job, a page of jobs, its log, its telemetry, and what the SSE stream reads after a change signal.
import { and, asc, eq, getTableColumns, gt, gte, lte, sql, type SQL } from "drizzle-orm";
import { preparedPerDatabase } from "@/lib/db/prepared-statements";
import { jobEvents, jobLogs, jobs, nodes } from "@/lib/db/schema";
import { limits } from "@/lib/limits";
import { db } from "@/lib/domain/database";
import { notFound } from "@/lib/domain/errors";
import { isUuid } from "@/lib/domain/ids";
import { keptCount } from "@/lib/domain/list-counts";
import {
  cappedTotal,
  descendingKeyset,
  exactTotal,
  keysetPage,
  listReads,
  orderOf,
  timeParam,
  type CursorPageRequest,
  type Keyset,
  type ListOrder,
} from "@/lib/domain/pagination";
import type { JobStatus } from "@/lib/contract/vocabulary";
import type * as wire from "@/lib/contract/schemas";
import type { ExecutionJob, TelemetryEvent } from "@/lib/contract/schemas";
import { toExecutionJob } from "./execution-job";
import { isJobPruned } from "./retention";
import type { JobRow } from "./job-change";
export type { ExecutionJob, TelemetryEvent };

// ── Reads, scoped to the owner ─────────────────────────────────────────────────────────────────────

const jobColumns = { job: jobs, nodeName: nodes.name, nodeRegion: nodes.region };
type JobWithNode = { job: JobRow; nodeName: string | null; nodeRegion: string | null };
const present = ({ job, nodeName, nodeRegion }: JobWithNode) =>
  toExecutionJob(job, nodeName !== null && nodeRegion !== null ? { name: nodeName, region: nodeRegion } : null);

/**
 * The read behind every GET of a job (its status, log, telemetry and event stream), which clients poll: a
 * named statement, parsed and planned once per connection instead of on every request.
 */
const ownedJobStatement = preparedPerDatabase((d) =>
  d
    .select(jobColumns)
    .from(jobs)
    .leftJoin(nodes, eq(nodes.id, jobs.assignedNodeId))
    .where(and(eq(jobs.id, sql.placeholder("jobId")), eq(jobs.accountId, sql.placeholder("accountId"))))
    .prepare("owned_job"),
);

/** The owner's job with its node; another developer's is not found. */
export async function ownedJobRow(accountId: string, jobId: string): Promise<JobWithNode> {
  if (!isUuid(jobId)) throw notFound("JOB_NOT_FOUND", "The job");
  const [row] = await ownedJobStatement(await db()).execute({ jobId, accountId });
  if (!row) throw notFound("JOB_NOT_FOUND", "The job");
  return row;
}

export async function getJob(accountId: string, jobId: string): Promise<ExecutionJob> {
  return present(await ownedJobRow(accountId, jobId));
}

export interface JobFilters extends CursorPageRequest<"jobs"> {
  status?: JobStatus;
  serviceId?: string;
  dateFrom?: Date;
  dateTo?: Date;
}

/**
 * Lists carry a short form of each input: string members cut to limits.listInputChars, in SQL, so a page of
 * image jobs never ships megabytes (from the database or to the client). The job's own route has it all.
 */
const longString = (value: SQL) =>
  sql`jsonb_typeof(${value}) = 'string' and length(${value} #>> '{}') > ${limits.listInputChars}`;
const listInput = sql<Record<string, unknown>>`coalesce((
  select jsonb_object_agg(e.key, case when ${longString(sql`e.value`)} then to_jsonb(left(e.value #>> '{}', ${limits.listInputChars})) else e.value end)
  from jsonb_each(${jobs.input}) e), '{}'::jsonb)`;
const inputTruncated = sql<boolean>`exists (select 1 from jsonb_each(${jobs.input}) e where ${longString(sql`e.value`)})`;
const listColumns = {
  job: { ...getTableColumns(jobs), input: listInput },
  inputTruncated,
  nodeName: nodes.name,
  nodeRegion: nodes.region,
};

/** Newest first, ties (a batch shares its created_at) by id: the order of jobs_account_created_id_idx. */
const jobsKeyset = descendingKeyset<"jobs", { job: JobRow }>(
  "jobs",
  sql`${jobs.createdAt}, ${jobs.id}`,
  ({ job }) => [job.createdAt, job.id],
  (key) => sql`${timeParam(key.createdAt)}, ${key.id}::uuid`,
);

export async function listJobs(accountId: string, filters: JobFilters): Promise<wire.JobList> {
  const d = await db();
  const conditions: SQL[] = [eq(jobs.accountId, accountId)];
  if (filters.status) conditions.push(eq(jobs.status, filters.status));
  if (filters.serviceId) conditions.push(eq(jobs.serviceId, filters.serviceId));
  if (filters.dateFrom) conditions.push(gte(jobs.createdAt, filters.dateFrom));
  if (filters.dateTo) conditions.push(lte(jobs.createdAt, filters.dateTo));
  const where = and(...conditions);
  // Every job is counted as it is written; a filtered list counts its matches, up to a cap.
  const total =
    conditions.length > 1 ? cappedTotal(d, sql`${jobs}`, where) : keptCount(d, accountId, "jobs").then(exactTotal);
  const order: ListOrder<"jobs"> = { key: { createdAt: jobs.createdAt, id: jobs.id }, descending: true };
  return keysetPage(
    jobsKeyset,
    filters,
    // Its own read: each row with its node's name and region.
    (after, reversed, limit, offset) =>
      d
        .select(listColumns)
        .from(jobs)
        .leftJoin(nodes, eq(nodes.id, jobs.assignedNodeId))
        .where(and(where, after))
        .orderBy(...orderOf(order, reversed))
        .limit(limit)
        .offset(offset),
    listReads(d, jobs, where, order, jobsKeyset).keyAt,
    ({ inputTruncated, ...row }) => ({ ...present(row), inputTruncated }),
    total,
  );
}

export interface LogPageRequest {
  /** Lines after this sequence (the last one the reader holds; 0 = from the start). */
  after: number;
  limit: number;
}

export interface LogPage {
  lines: wire.ExecutionLog[];
  /** Lines after the last of `lines` exist: read on with `after` = its sequence. */
  hasMore: boolean;
}

/**
 * A page of the job's log, oldest first, by a cursor on `sequence`: one range read of the key (job_id,
 * sequence) whatever the log's length, and never more than `limit` lines in one answer.
 */
export async function getJobLogs(accountId: string, jobId: string, { after, limit }: LogPageRequest): Promise<LogPage> {
  const d = await db();
  await ownedJobRow(accountId, jobId);
  // One line past the page says whether there is more, without counting the log.
  const rows = await d
    .select()
    .from(jobLogs)
    .where(and(eq(jobLogs.jobId, jobId), gt(jobLogs.sequence, after)))
    .orderBy(asc(jobLogs.sequence))
    .limit(limit + 1);
  return { lines: rows.slice(0, limit).map(toExecutionLog), hasMore: rows.length > limit };
}

function toExecutionLog(l: typeof jobLogs.$inferSelect): wire.ExecutionLog {
  return {
    sequence: l.sequence,
    timestamp: l.createdAt.toISOString(),
    level: l.level,
    source: l.source,
    message: l.message,
    ...(l.nodeId ? { nodeId: l.nodeId } : {}),
  };
}

type EventRow = typeof jobEvents.$inferSelect;
export function toTelemetryEvent(e: EventRow): TelemetryEvent {
  return {
    eventId: e.id,
    jobId: e.jobId,
    sequence: e.sequence,
    type: e.type,
    timestamp: e.createdAt.toISOString(),
    attempt: e.attempt,
    ...(e.nodeId ? { nodeId: e.nodeId } : {}),
    ...(e.data ? { data: e.data as Record<string, unknown> } : {}),
  };
}

/** By sequence, oldest first: a key of (job_id, sequence), the job's primary key. */
const telemetryKeyset: Keyset<"telemetry", EventRow> = {
  list: "telemetry",
  keyOf: (e) => [e.sequence],
  after: ({ seq }) => gt(jobEvents.sequence, seq),
  atOrBefore: ({ seq }) => lte(jobEvents.sequence, seq),
  columns: sql`${jobEvents.sequence}`,
  afterRow: (row) => sql`${jobEvents.sequence} > (${row})`,
};

export async function getJobTelemetry(
  accountId: string,
  jobId: string,
  request: CursorPageRequest<"telemetry">,
): Promise<wire.TelemetryPage> {
  const d = await db();
  const { job } = await ownedJobRow(accountId, jobId);
  const { read, keyAt } = listReads<"telemetry", EventRow>(
    d,
    jobEvents,
    eq(jobEvents.jobId, jobId),
    { key: { seq: jobEvents.sequence }, descending: false },
    telemetryKeyset,
  );
  // Sequences run 1, 2, 3… without gaps: the last one written is the count, unless retention pruned them all.
  const total = isJobPruned(d, job).then((pruned) => exactTotal(pruned ? 0 : job.eventSeq));
  return keysetPage(telemetryKeyset, request, read, keyAt, toTelemetryEvent, total);
}

/** The job and its telemetry after `afterSequence` (the SSE stream's read). */
export async function readJobProgress(accountId: string, jobId: string, afterSequence: number) {
  const d = await db();
  const row = await ownedJobRow(accountId, jobId);
  const events = await d
    .select()
    .from(jobEvents)
    .where(and(eq(jobEvents.jobId, jobId), sql`${jobEvents.sequence} > ${afterSequence}`))
    .orderBy(asc(jobEvents.sequence));
  return { job: present(row), events: events.map(toTelemetryEvent) };
}
