// The API's wire shapes (CONTRACT §4–6). tests/client/types-match-server.ts proves they equal the
// server's zod schemas, so the two cannot drift apart.

/** ISO-8601 UTC timestamp, as the API sends it. */
export type IsoTime = string;

/** A time the client accepts: a `Date`, an ISO-8601 string or epoch milliseconds. Sent as ISO. */
export type TimeInput = Date | string | number;

export type JobStatus = "queued" | "routing" | "assigned" | "running" | "retrying" | "completed" | "failed";
export type FinalJobStatus = "completed" | "failed";

export type TelemetryEventType =
  | "JOB_CREATED"
  | "WORKFLOW_INITIALIZED"
  | "ROUTING_STARTED"
  | "NODE_ASSIGNED"
  | "EXECUTION_STARTED"
  | "PROVIDER_REQUEST"
  | "RESULT_STORED"
  | "EXECUTION_COMPLETED"
  | "EXECUTION_FAILED"
  | "RETRY_SCHEDULED"
  | "NODE_LOST"
  | "ROUTING_FAILED"
  | "JOB_FAILED"
  | "JOB_CANCELLED";

export type FailureCategory = "validation" | "routing" | "runtime";
export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogSource = "platform" | "node" | "provider";
export type CreditEntryType = "grant" | "charge" | "refund" | "topup" | "adjustment";
export type Scope =
  | "services:read"
  | "services:execute"
  | "jobs:read"
  | "telemetry:read"
  | "credits:read"
  | "webhooks:manage"
  | "nodes:manage";

/**
 * Where a job may run: `own` only your own nodes (none live within the routing timeout → failed with category
 * `routing`, refunded), `network` only nodes no developer owns, `any` both (the default).
 */
export type Placement = "any" | "own" | "network";

/** Capability-specific input of a service, e.g. `{ text: "…" }` for `token-count`. */
export type ServiceInput = Record<string, unknown>;

export interface Pagination {
  page: number;
  limit: number;
  /** At least this many when `totalIsLowerBound` (a filtered list counts up to 10 000 rows). */
  total: number;
  totalPages: number;
  /** Exact: another item follows this page. */
  hasMore: boolean;
  totalIsLowerBound: boolean;
  /** `after` for the next page; null on the last. */
  nextCursor: string | null;
  /** With `after`: the `after` of the page before, or null when that page is the first. */
  prevCursor: string | null;
}

export interface Page<T> {
  data: T[];
  pagination: Pagination;
}

/** An AI Execution the network offers. */
export interface ExecutionService {
  serviceId: string;
  name: string;
  description: string;
  creditCost: number;
  /** What a job with placement `own` is charged; a job with `any` that completes on your own node is refunded down to it. */
  ownNodeCreditCost: number;
  status: "active" | "disabled";
  /** JSON Schema of the service's `input`. */
  inputSchema: Record<string, unknown>;
}

export interface AssignedNode {
  nodeId: string;
  name: string;
  region: string;
  assignedAt: IsoTime;
}

export interface JobResult {
  summary: string;
  output: Record<string, unknown>;
}

export interface JobError {
  category: FailureCategory;
  code: string;
  message: string;
}

export interface ExecutionJob {
  jobId: string;
  workflowRunId: string;
  serviceId: string;
  status: JobStatus;
  /** 0–100; a state indicator, not a measure of result quality. */
  progress: number;
  input: ServiceInput;
  /** Credits charged (after the own-node refund of an `any` job that completed on your own node). */
  creditCost: number;
  placement: Placement;
  attempt: number;
  maxAttempts: number;
  assignedNode: AssignedNode | null;
  /** Only when `status` is `completed`. */
  result: JobResult | null;
  /** Only when `status` is `failed`. */
  error: JobError | null;
  createdAt: IsoTime;
  updatedAt: IsoTime;
  startedAt: IsoTime | null;
  completedAt: IsoTime | null;
}

/** A job as lists show it: string members of `input` cut to 200 characters (`getJob` has the full input). */
export interface JobListItem extends ExecutionJob {
  /** True when a member of `input` was cut. */
  inputTruncated: boolean;
}

export type JobList = Page<JobListItem>;

export interface ExecutionLog {
  sequence: number;
  timestamp: IsoTime;
  level: LogLevel;
  source: LogSource;
  message: string;
  nodeId?: string;
}

export interface TelemetryEvent {
  eventId: string;
  jobId: string;
  /** 1, 2, 3… per job, without gaps. */
  sequence: number;
  type: TelemetryEventType;
  timestamp: IsoTime;
  attempt: number;
  nodeId?: string;
  data?: Record<string, unknown>;
}

export type TelemetryPage = Page<TelemetryEvent>;

export interface CreditBalance {
  balance: number;
  currency: "credits";
  updatedAt: IsoTime;
}

export interface CreditEntry {
  entryId: string;
  type: CreditEntryType;
  /** Signed: charges are negative, grants and refunds positive. */
  amount: number;
  balanceAfter: number;
  jobId: string | null;
  /** The top-up a `topup` entry credits. */
  topUpId: string | null;
  description: string;
  createdAt: IsoTime;
}

export type CreditHistory = Page<CreditEntry>;

/** How this deployment takes payments for credits (CONTRACT §10), or `{ enabled: false }`. */
export type TopUpConfig =
  | { enabled: false }
  | {
      enabled: true;
      chainId: number;
      tokenAddress: string;
      tokenSymbol: string;
      tokenDecimals: number;
      treasuryAddress: string;
      /** Credits per one whole token. */
      creditsPerToken: number;
      /** Blocks on top of the including block before a payment is credited. */
      confirmations: number;
      explorerUrl: string | null;
    };

export type TopUpStatus = "submitted" | "confirming" | "credited" | "failed";
export type TopUpFailureReason =
  "WRONG_CHAIN" | "TX_FAILED" | "NO_PAYMENT" | "WRONG_SENDER" | "AMOUNT_OUT_OF_RANGE" | "DROPPED" | "UNRECORDABLE";

/** A payment of the token to the treasury, and the credits it buys. */
export interface TopUp {
  topUpId: string;
  chainId: number;
  txHash: string;
  from: string;
  /** The token's base units, as a decimal string (may exceed Number's range). */
  tokenAmount: string;
  credits: number;
  status: TopUpStatus;
  confirmations: number;
  requiredConfirmations: number;
  blockNumber: number | null;
  failureReason: TopUpFailureReason | null;
  createdAt: IsoTime;
  creditedAt: IsoTime | null;
}

export type TopUpPage = Page<TopUp>;

export interface UsageByService {
  serviceId: string;
  jobs: number;
  completed: number;
  failed: number;
  creditsUsed: number;
}

export interface UsageByDay {
  /** `YYYY-MM-DD`, UTC. */
  date: string;
  jobs: number;
  creditsUsed: number;
}

/** Usage through one API key over the period. */
export interface UsageByKey {
  /** null: jobs submitted without a key. */
  keyId: string | null;
  name: string | null;
  /** The 8 characters after `dev_`, to recognise the key. */
  prefix: string | null;
  jobs: number;
  /** Charges minus refunds of the jobs submitted with this key. */
  creditsUsed: number;
}

export interface UsageSummary {
  periodStart: IsoTime;
  periodEnd: IsoTime;
  totalJobs: number;
  completedJobs: number;
  failedJobs: number;
  activeJobs: number;
  /** Charges minus refunds. */
  creditsUsed: number;
  /** Fraction 0–1 of final jobs that completed. */
  successRate: number;
  /** Exact mean duration of the final jobs, in ms. */
  avgDurationMs: number | null;
  /** 95th percentile of the final jobs' durations, within 2.5 % (or 1 ms) of the exact value. */
  p95DurationMs: number | null;
  byService: UsageByService[];
  byDay: UsageByDay[];
  /** Most credits first. */
  byKey: UsageByKey[];
}

/** The body of every error response. */
export interface ErrorEnvelope {
  error: {
    code: string;
    message: string;
    requestId: string;
    details?: Record<string, unknown>;
  };
}

// ── Requests ──────────────────────────────────────────────────────────────────────────────────────

export interface ExecuteRequest {
  input: ServiceInput;
  placement?: Placement;
}

export interface CreateJobParams {
  type: "developer_job";
  payload: { serviceId: string; input: ServiceInput; placement?: Placement };
}

// ── Nodes you own (CONTRACT §12) ──────────────────────────────────────────────────────────────────

/** `pending` until the node first registers or heart-beats; `lost` once its heartbeats stopped. */
export type NodeState = "pending" | "live" | "draining" | "offline" | "lost" | "revoked";

/** One of your own execution nodes. */
export interface Node {
  nodeId: string;
  name: string;
  region: string;
  serviceIds: string[];
  concurrency: number;
  state: NodeState;
  lastHeartbeatAt: IsoTime | null;
  runningJobs: number;
  createdAt: IsoTime;
  revokedAt: IsoTime | null;
}

/** A node with its token (`node_…`): returned only when it is created and when its token is rotated. */
export interface NodeWithToken extends Node {
  token: string;
}

export interface NodeList {
  data: Node[];
}

export interface CreateNodeParams {
  /** 1–80 characters. */
  name: string;
  /** 1–40 characters; default "local". */
  region?: string;
  /** At least one service id of the catalog. */
  serviceIds: string[];
  /** Jobs it runs at once, 1–64; default 4. */
  concurrency?: number;
}

export interface PageParams {
  /**
   * ≥ 1, default 1; a page by number must start within the list's first 10 000 rows (else the server answers 400
   * INVALID_REQUEST): deeper, pass `after` or iterate. With `after`, only labels the page.
   */
  page?: number;
  /** 1–100, default 20. */
  limit?: number;
  /** The page after this cursor (a `pagination.nextCursor` of the same list): the same cost at any depth. */
  after?: string;
}

export interface LogPageParams {
  /** Lines after this sequence (the last one read); default 0, the start. */
  after?: number;
  /** 1–1 000, default 1 000. */
  limit?: number;
}

export interface ListJobsParams extends PageParams {
  status?: JobStatus;
  serviceId?: string;
  /** Inclusive, on `createdAt`. */
  dateFrom?: TimeInput;
  /** Inclusive, on `createdAt`. */
  dateTo?: TimeInput;
}

export interface UsageSummaryParams {
  /** Default: 30 days before `periodEnd`. */
  periodStart?: TimeInput;
  /** Default: now. */
  periodEnd?: TimeInput;
}

// ── Job event stream ──────────────────────────────────────────────────────────────────────────────

/** One message of `streamJobEvents`: the job's new state, or a telemetry event. */
export type JobStreamEvent =
  | { type: "status"; id: string | null; job: ExecutionJob }
  | { type: "telemetry"; id: string | null; event: TelemetryEvent };
