// What a change to a job says: its new status, the guards against stale writers, the columns it sets, and
// the telemetry events and log lines it appends. Applied by apply-change.ts (and, for a new job, create-job.ts).
import { sql, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import type { jobs } from "@/lib/db/schema";
import type { EventType, JobStatus, LogLevel, LogSource } from "@/lib/contract/vocabulary";
import { sameClassInEveryBundle } from "@/lib/singleton";
import { attemptDeadlineSql } from "./attempt-deadline";

export type JobRow = typeof jobs.$inferSelect;

export interface EventInput {
  type: EventType;
  data?: Record<string, unknown>;
  nodeId?: string | null;
  /** data.attempt is the job's attempt after the change: for a change that begins an attempt (a claim). */
  withAttempt?: boolean;
  /** Reported by a node: counts against the job's caps in a `capped` change. */
  reported?: boolean;
}

export interface LogInput {
  level: LogLevel;
  source: LogSource;
  /** With `withAttempt`, "{attempt}" in it stands for the job's attempt after the change. */
  message: string;
  nodeId?: string | null;
  withAttempt?: boolean;
  /** Reported by a node: counts against the job's caps in a `capped` change. */
  reported?: boolean;
}

/**
 * A value the database computes as the change is written. Each kind is fixed SQL with at most one bound
 * parameter, so a change's statement text depends on its shape alone and is built once (executeShaped).
 */
export class Computed {
  private constructor(
    readonly kind:
      "now" | "now-if-unset" | "increment" | "seconds-from-now" | "seconds-from-now-until-deadline" | "at-least",
    readonly parameter: number | null = null,
  ) {}
  static readonly now = new Computed("now");
  /** The column's value if it has one, else now (a first start keeps its time across attempts). */
  static readonly nowIfUnset = new Computed("now-if-unset");
  static readonly increment = new Computed("increment");
  static secondsFromNow = (seconds: number) => new Computed("seconds-from-now", seconds);
  /** A lease of `seconds`, never past the attempt's deadline: its timeout plus one such lease (attempt-deadline.ts). */
  static secondsFromNowUntilDeadline = (seconds: number) => new Computed("seconds-from-now-until-deadline", seconds);
  /** The column's value, raised to `floor` (never lowered by a late or concurrent writer). */
  static atLeast = (floor: number) => new Computed("at-least", floor);

  /** The SQL type of its parameter, where a change's values are read from a row per job. */
  get parameterType(): string {
    return this.kind === "at-least" ? "int" : "double precision";
  }

  sqlFor(column: PgColumn, parameter: SQL): SQL {
    switch (this.kind) {
      case "now":
        return sql`now()`;
      case "now-if-unset":
        return sql`coalesce(${column}, now())`;
      case "increment":
        return sql`${column} + 1`;
      case "seconds-from-now":
        return sql`now() + make_interval(secs => ${parameter}::double precision)`;
      case "seconds-from-now-until-deadline":
        // The grace past the timeout is one lease: the parameter (a prepared statement's text holds no value).
        return sql`least(now() + make_interval(secs => ${parameter}::double precision), ${attemptDeadlineSql(sql`${parameter}::double precision`)})`;
      case "at-least":
        return sql`greatest(${column}, ${parameter}::int)`;
    }
  }
}

sameClassInEveryBundle(Computed, "Computed");

export type ColumnPatch = { [K in keyof JobRow]?: JobRow[K] | Computed };

export interface JobChange {
  /** New status; omitted for events or logs that leave the status alone. */
  to?: JobStatus;
  /**
   * A status passed on the way to `to` in the same change (a claim that starts its jobs at once passes
   * assigned): checked by the state machine and announced to webhooks like any status. Its share of the
   * events is the first `eventCount`.
   */
  through?: { status: JobStatus; eventCount: number };
  /** Statuses the job must be in now (default: every status `to` may follow, or any active status). */
  from?: readonly JobStatus[];
  /** Guards against stale writers: the job's current attempt / assigned node must match. */
  attempt?: number;
  nodeId?: string;
  set?: ColumnPatch;
  events?: EventInput[];
  logs?: LogInput[];
  /**
   * Its `reported` events and log lines count against the job's caps (lib/limits.ts): those past them are not
   * stored (lib/engine/appended-log.ts). A property of the change's kind (a node's reports), not of its data,
   * so that reports written together have one shape.
   */
  capped?: boolean;
}

/**
 * The jobs a change applies to: `sql`, a uuid[] expression that is the same object on every call with the
 * same `shape` (a module constant), taking its values from placeholders filled from `values`.
 */
export interface Candidates {
  shape: string;
  sql: SQL;
  values: Record<string, unknown>;
}

const oneJobSql = sql`array[${sql.placeholder("jobId")}::uuid]`;
export const oneJob = (jobId: string): Candidates => ({ shape: "one", sql: oneJobSql, values: { jobId } });
