// What one bench run measured, as plain data: the leaf every report section imports (the sections import
// down from here and from each other never), and what scripts/bench.ts fills in.
import type { CpuUse } from "./cpu";
import type { GraphileResult } from "./graphile";
import type { LoadResult } from "./http-load";
import type { ProfileSummary, ProfileWindow } from "./profile";
import type { DatabaseWork, ScaleOutResult } from "./scale-out";
import type { Driver } from "./server";
import type { Summary } from "./stats";

export interface Machine {
  cpuModel: string;
  cores: number;
  node: string;
  driver: string;
  loadAverage: number[];
  date: string;
  command: string;
}

export interface HttpResults {
  connections: number;
  durationSeconds: number;
  health: LoadResult;
  execute: LoadResult;
}

export interface NodesResults {
  nodes: number;
  slots: number;
  steady: {
    rate: number;
    count: number;
    overhead: Summary;
    createdToAssigned: Summary;
    assignedToStarted: Summary;
    submit: Summary;
    failed: number;
    cpu: CpuUse;
  };
  burst: {
    jobs: number;
    submitters: number;
    spanMs: number;
    jobsPerSecond: number;
    submitWindowMs: number;
    /** Wall time the provider reported per job. */
    providerMs: Summary;
    failed: number;
    cpu: CpuUse;
    /** The burst on the monotonic clock (as CPU profiles read it): from its first POST to its CPU reading. */
    window?: ProfileWindow;
    /** `--webhook`: the burst's job.completed deliveries that carried `data.receipt`. */
    receipts?: number;
  };
  liveness: Liveness;
  /** PostgreSQL runs: statements and WAL over the burst, rows over the database's life. */
  database?: DatabaseWork;
  profile?: ProfileSummary;
}

export type LivenessSummary = Summary & { failed: number };

export interface Liveness {
  idle: LivenessSummary;
  burst: LivenessSummary;
  worstCase: LivenessSummary;
  worstCaseJob: { ok: boolean; providerMs: number; createdToCompletedMs: number };
}

/**
 * The product as users run it: one fresh `server.mjs` of a tree's production build with the product's own
 * embedded nodes, measured from its first job on (no warm-up).
 */
export interface ProductResult {
  /** The checkout that was served (this tree, or the baseline's). */
  root: string;
  nodes: number;
  slots: number;
  /** `server.mjs` spawned → /api/health answers (database opened and migrated, nodes started). */
  readyMs: number;
  /** The fresh server's first job: POST sent (bench's clock) → EXECUTION_COMPLETED (telemetry). */
  firstJobMs: number;
  steady: MeasuredPhases["steady"];
  burst: MeasuredPhases["burst"];
  /** The same server measured again after `unmeasuredJobs` more, `afterJobs` jobs in all: warmed up. */
  warmed?: MeasuredPhases & { afterJobs: number; unmeasuredJobs: number };
  /** `--profile` (observability): the burst's sampled self time by owner (bench/profile.ts). */
  profileByOwner?: { owner: string; selfMs: number }[];
}

/** What the product phase measures on a server, once fresh and (optionally) once warmed. */
export interface MeasuredPhases {
  steady: {
    rate: number;
    count: number;
    /** JOB_CREATED → EXECUTION_STARTED, as the harness measures it. */
    overhead: Summary;
    /** POST sent → EXECUTION_COMPLETED: what a user waits for. */
    submitToCompleted: Summary;
    failed: number;
  };
  burst: {
    jobs: number;
    submitters: number;
    /** First POST sent → last EXECUTION_COMPLETED (with `--webhook`, or last job.completed delivered if later). */
    spanMs: number;
    /** First POST sent → last 202 answered: when it is close to spanMs, submission bounds the rate, not the nodes. */
    submitWindowMs: number;
    jobsPerSecond: number;
    failed: number;
    cpu: CpuUse;
    /** The burst on the monotonic clock (as CPU profiles read it): from its first POST to its CPU reading. */
    window?: ProfileWindow;
    /** `--webhook`: the burst's job.completed deliveries that carried `data.receipt`. */
    receipts?: number;
  };
}

/** One checkout's harness and `server.mjs` phases. */
export interface TreeResults {
  nodes: NodesResults[];
  product: ProductResult;
}

/** One round of `--baseline`: each phase on this tree and on the baseline, back to back. */
export interface PairedRound {
  here: TreeResults;
  baseline: TreeResults;
}

/** The same phases run on another checkout in the same run (`--baseline`), paired with this tree's. */
export interface BaselineResults {
  root: string;
  /** The first round's `here` is the run's own `nodes` and `product`. */
  rounds: PairedRound[];
}

export interface RunResults {
  driver: Driver;
  /** The section's heading: which database the run used. */
  title: string;
  machine: Machine;
  http: HttpResults;
  nodes: NodesResults[];
  product: ProductResult;
  baseline?: BaselineResults;
  scaleOut: ScaleOutResult[];
  graphile: GraphileResult[];
  /** graphile-worker with no warm-up, at the product's concurrency: the like-for-like reference for a fresh `server.mjs`. */
  graphileFresh?: GraphileResult;
  graphileVersion?: string;
  /** Where this run's CPU profiles are (`--profile`). */
  profileDir?: string;
  /** Jobs each warmed server ran before its figures were taken. */
  warmupJobs: number;
  quick: boolean;
}
