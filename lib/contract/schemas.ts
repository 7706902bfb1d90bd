// The wire schemas of the execution API (CONTRACT.md): they validate requests, type the domain mappers and the
// route handlers' responses, generate the OpenAPI document, and the SDK's types are checked against them
// (tests/client/types-match-server.ts). Below the domain: imports only zod, the vocabularies and the limits.
import { z } from "zod";
import { creditLimitResets, emailAddressPattern, nodeStates, placements, scopes } from "@/lib/contract/vocabulary";
import {
  eventTypes,
  failureCategories,
  jobStatuses,
  ledgerEntryTypes,
  logLevels,
  logSources,
  serviceStatuses,
  webhookEventTypes,
} from "@/lib/contract/vocabulary";
import { topUpFailureReasons, topUpStatuses } from "@/lib/contract/vocabulary";
import { limits } from "@/lib/limits";
import { decodeCursor, type CursorList } from "./list-cursor";

const isoTime = z.string().meta({ format: "date-time", description: "ISO-8601 UTC" });
const nullableIso = isoTime.nullable();
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);

/**
 * Broader than zod's default rule, narrower than `format: email` (which also allows quoted local parts and
 * address literals): the document states the pattern.
 */
const emailAddress = z.email({ pattern: emailAddressPattern }).max(254).meta({
  pattern: emailAddressPattern.source,
  description:
    "An email address as HTML's input type=email accepts it (this pattern): no quoted local parts or [address] literals",
});

/** Times the API accepts: what both PostgreSQL and ISO-8601 four-digit years represent exactly. */
const storableTime = (d: Date) =>
  !Number.isNaN(d.getTime()) && d.getUTCFullYear() >= 1970 && d.getUTCFullYear() <= 9999;

// The three forms a time filter takes, as the OpenAPI document declares them. A date-time names its offset
// (RFC 3339): without one, JavaScript would read it in the server's own time zone.
const rfc3339DateTime =
  /^(\d{4})-(\d{2})-(\d{2})[Tt]([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/;
const fullDate = /^(\d{4})-(\d{2})-(\d{2})$/;
const epochMilliseconds = /^[0-9]+$/;

/** Whether year-month-day names a day of the calendar (JavaScript rolls 2024-02-30 over into March). */
function isCalendarDay(year: string, month: string, day: string): boolean {
  const d = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  return d.getUTCMonth() === Number(month) - 1 && d.getUTCDate() === Number(day);
}

function parseTime(v: string): Date | undefined {
  if (epochMilliseconds.test(v)) return new Date(Number(v));
  const parts = rfc3339DateTime.exec(v) ?? fullDate.exec(v);
  if (!parts || !isCalendarDay(parts[1], parts[2], parts[3])) return undefined;
  // A date alone is that day's first millisecond, UTC.
  return new Date(v);
}

/** A time filter: an RFC 3339 date-time, a date (its start, UTC) or epoch milliseconds, between 1970 and 9999. */
export const timeParam = z
  .string()
  .transform((v, ctx) => {
    const d = parseTime(v);
    if (!d || !storableTime(d)) {
      ctx.addIssue({
        code: "custom",
        message:
          "Expected an RFC 3339 date-time with its offset (2026-11-01T10:00:00Z), a date (2026-11-01) or epoch milliseconds, between 1970 and 9999.",
      });
      return z.NEVER;
    }
    return d;
  })
  .meta({
    description: "An RFC 3339 date-time (with Z or an offset), a date (its start, UTC) or epoch milliseconds",
    anyOf: [
      { type: "string", format: "date-time" },
      { type: "string", format: "date" },
      { type: "string", pattern: epochMilliseconds.source, description: "Epoch milliseconds" },
    ],
  });

/** A decimal integer query parameter (no "0x10", "1e3" or blanks). */
const intParam = (min: number, max: number, fallback: number, description?: string) =>
  z
    .string()
    .regex(/^\d{1,9}$/, "Expected a whole number")
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .default(fallback)
    .meta({ type: "integer", minimum: min, maximum: max, default: fallback, ...(description ? { description } : {}) });

/** `after`: a list's opaque cursor (list-cursor.ts), parsed into the sort key its read starts after. */
const cursorParam = <L extends CursorList>(list: L) =>
  z
    .string()
    .transform((raw, ctx) => {
      const key = decodeCursor(list, raw);
      if (key === undefined) {
        ctx.addIssue({ code: "custom", message: "Expected a cursor this list returned (pagination.nextCursor)." });
        return z.NEVER;
      }
      return key;
    })
    .optional()
    .meta({
      type: "string",
      description:
        "The page after this cursor (`pagination.nextCursor` of the page before): the same cost at any depth. With `after`, `page` only labels the answer",
    });

const offsetCap = limits.listOffsetCap.toLocaleString("en-US");
export const pageQuery = z.object({
  page: intParam(
    1,
    1_000_000,
    1,
    `The page by number: it must start within the list's first ${offsetCap} rows ((page − 1) × limit < ${offsetCap}), or 400 INVALID_REQUEST; deeper pages are read with \`after\``,
  ),
  limit: intParam(1, limits.pageLimitMax, limits.pageLimitDefault),
});
/**
 * A list's page query: by `page` (an offset, within the list's first limits.listOffsetCap rows), or by `after`
 * (a cursor of the same list, at any depth; `page` then only labels the answer).
 */
export const cursorPageQuery = <L extends CursorList>(list: L) =>
  pageQuery.extend({ after: cursorParam(list) }).superRefine(({ page, limit, after }, ctx) => {
    if (after || (page - 1) * limit < limits.listOffsetCap) return;
    ctx.addIssue({
      code: "custom",
      path: ["page"],
      message: `Pages by number reach a list's first ${offsetCap} rows (at limit ${limit}, page ${Math.ceil(limits.listOffsetCap / limit)} at most). Read deeper pages with after=<pagination.nextCursor of the page before>: a cursor costs the same at any depth.`,
    });
  });

export const Pagination = z
  .object({
    page: z.number().int(),
    limit: z.number().int(),
    total: z
      .number()
      .int()
      .meta({
        description: `The list's size; when \`totalIsLowerBound\` (a filtered list is counted up to ${limits.listCountCap.toLocaleString("en-US")} rows), at least that many`,
      }),
    totalPages: z.number().int(),
    hasMore: z.boolean().meta({ description: "Exact: another row follows this page" }),
    totalIsLowerBound: z.boolean().meta({
      description: `True when the list holds more than ${limits.listCountCap.toLocaleString("en-US")} rows matching its filters, counted no further: \`total\` is then a lower bound`,
    }),
    nextCursor: z.string().nullable().meta({
      description: "`after` for the next page (null on the last): pages by cursor cost the same at any depth",
    }),
    prevCursor: z.string().nullable().meta({
      description:
        "Only with `after`: the `after` of the page before this one, or null when that page is the first (read it without `after`)",
    }),
  })
  .meta({ id: "Pagination" });

export const ErrorEnvelope = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      requestId: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .meta({ id: "Error" });

// ── Auth ──────────────────────────────────────────────────────────────────────────────────────────
export const NonceResponse = z.object({ nonce: z.string() }).meta({ id: "Nonce" });
export const VerifyRequest = z
  .object({ message: z.string().min(1).max(4096), signature: z.string().regex(/^0x[0-9a-fA-F]+$/) })
  .strict();
export const SessionResponse = z.object({ address, chainId: z.number().int() }).meta({ id: "Session" });

// ── Developers and keys ───────────────────────────────────────────────────────────────────────────
export const CreateProfileRequest = z
  .object({
    name: z.string().trim().min(1).max(80),
    email: emailAddress.optional(),
    organization: z.string().trim().max(80).optional(),
  })
  .strict();
/** Credits: whole numbers a JavaScript client reads exactly. */
const credits = z.number().int().max(Number.MAX_SAFE_INTEGER);
const lowBalanceThreshold = credits.min(0).nullable().meta({
  description:
    "A charge that takes the balance from at or above this to below it sends one `credits.low` webhook event; null: no alert",
});
/** Partial update; `null` clears an optional field. */
export const UpdateProfileRequest = z
  .object({
    name: z.string().trim().min(1).max(80).optional(),
    email: emailAddress.nullable().optional(),
    organization: z.string().trim().max(80).nullable().optional(),
    lowBalanceThreshold: lowBalanceThreshold.optional(),
  })
  .strict();
export const Profile = z
  .object({
    developerId: z.string(),
    walletAddress: address,
    name: z.string(),
    email: z.string().nullable(),
    organization: z.string().nullable(),
    lowBalanceThreshold,
    createdAt: isoTime,
  })
  .meta({ id: "DeveloperProfile" });

export const Scope = z.enum(scopes).meta({ id: "Scope" });
export const CreditLimitReset = z
  .enum(creditLimitResets)
  // Inline, not a named component: a reference would lose its `null` in the generated document.
  .meta({ description: "The limit starts afresh at 00:00 UTC each day, each Monday, or on the 1st of each month" });
const creditLimitFields = {
  creditLimit: credits.positive().nullable().optional().meta({
    description:
      "The most credits this key may spend per creditLimitReset period (ever, without a reset); null removes the limit",
  }),
  creditLimitReset: CreditLimitReset.nullable().optional(),
};
/** A reset belongs to a limit: it cannot come with the limit's removal. */
const resetNeedsLimit = (body: { creditLimit?: number | null; creditLimitReset?: string | null }) =>
  !(body.creditLimit === null && body.creditLimitReset !== undefined && body.creditLimitReset !== null);
const resetNeedsLimitIssue = {
  message: "creditLimitReset cannot be set while creditLimit is null (removed)",
  path: ["creditLimitReset"],
};
export const CreateKeyRequest = z
  .object({
    name: z.string().trim().min(1).max(80),
    scopes: z
      .array(Scope)
      .min(1)
      .transform((s) => [...new Set(s)]),
    expiresAt: z.iso
      .datetime({ offset: true })
      .refine((v) => storableTime(new Date(v)), "expiresAt must be a time between 1970 and 9999")
      .refine((v) => new Date(v).getTime() > Date.now(), "expiresAt must be in the future")
      .optional(),
    ...creditLimitFields,
  })
  .strict()
  .refine(resetNeedsLimit, resetNeedsLimitIssue);
export const UpdateKeyRequest = z
  .object({ name: z.string().trim().min(1).max(80).optional(), ...creditLimitFields })
  .strict()
  .refine(resetNeedsLimit, resetNeedsLimitIssue);
export const RotateKeyRequest = z
  .object({ gracePeriodSeconds: z.number().int().min(0).max(604_800).optional() })
  .strict();
export const ApiKey = z
  .object({
    keyId: z.string(),
    name: z.string(),
    scopes: z.array(Scope),
    prefix: z.string(),
    createdAt: isoTime,
    lastUsedAt: nullableIso,
    expiresAt: nullableIso,
    revokedAt: nullableIso,
    /** "dashboard": the dashboard's own key for running services (revocable; never rotatable). */
    kind: z.enum(["standard", "dashboard"]),
    creditLimit: credits.nullable(),
    creditLimitReset: CreditLimitReset.nullable(),
    creditLimitRemaining: credits
      .nullable()
      .meta({ description: "What the key may still spend in the current period; null when it has no limit" }),
    usage: z.object({ daily: credits, weekly: credits, monthly: credits, total: credits }).meta({
      description:
        "Credits charged minus refunded through this key: in the current UTC day, week (from Monday) and month, and in all",
    }),
  })
  .meta({ id: "ApiKey" });
export const ApiKeyWithSecret = ApiKey.extend({ key: z.string() }).meta({ id: "ApiKeyWithSecret" });
/** `error.details` of 402 KEY_CREDIT_LIMIT (documentation; the domain builds it in lib/domain/spend-controls.ts). */
export const CreditLimitDetails = z
  .object({
    creditLimit: credits,
    creditLimitRemaining: credits,
    creditLimitReset: CreditLimitReset.nullable(),
    resetsAt: nullableIso.meta({ description: "When the limit starts afresh; null for a limit without a reset" }),
  })
  .meta({ id: "KeyCreditLimitDetails" });

// ── Services and jobs ─────────────────────────────────────────────────────────────────────────────
export const ExecutionService = z
  .object({
    serviceId: z.string(),
    name: z.string(),
    description: z.string(),
    creditCost: z.number().int().min(0),
    ownNodeCreditCost: z.number().int().min(0).meta({
      description:
        "What a job with placement `own` is charged: ceil(creditCost × OWN_NODE_CREDIT_SHARE) (CONTRACT §12); a job with `any` that completes on the developer's own node is refunded down to it",
    }),
    status: z.enum(serviceStatuses),
    inputSchema: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "ExecutionService" });

export const Placement = z.enum(placements).meta({
  id: "Placement",
  description:
    "Where the job may run: `own` only the developer's own live nodes (none within the routing timeout → failed, category routing, refunded), `network` only nodes no developer owns, `any` both (default)",
});
export const ExecuteRequest = z
  .object({ input: z.record(z.string(), z.unknown()), placement: Placement.optional() })
  .strict();
export const CreateJobRequest = z
  .object({
    type: z.literal("developer_job"),
    payload: z
      .object({
        serviceId: z.string().min(1).max(100),
        input: z.record(z.string(), z.unknown()),
        placement: Placement.optional(),
      })
      .strict(),
  })
  .strict();
export const IdempotencyKeyHeader = z
  .string()
  .min(1)
  .max(limits.idempotencyKeyMaxLength)
  .regex(/^[\x20-\x7E]+$/, "Idempotency-Key must be printable ASCII");

export const JobStatus = z.enum(jobStatuses).meta({ id: "JobStatus" });
export const JobResult = z.object({ summary: z.string(), output: z.record(z.string(), z.unknown()) });
export const JobError = z.object({ category: z.enum(failureCategories), code: z.string(), message: z.string() });
export const ExecutionJob = z
  .object({
    jobId: z.string(),
    workflowRunId: z.string(),
    serviceId: z.string(),
    status: JobStatus,
    progress: z.number().int().min(0).max(100),
    input: z.record(z.string(), z.unknown()),
    creditCost: z.number().int().meta({
      description:
        "Credits charged for the job (after the own-node refund of a job with placement `any` that completed on the developer's own node)",
    }),
    placement: Placement,
    attempt: z.number().int().min(0),
    maxAttempts: z.number().int(),
    assignedNode: z
      .object({ nodeId: z.string(), name: z.string(), region: z.string(), assignedAt: isoTime })
      .nullable(),
    result: JobResult.nullable(),
    error: JobError.nullable(),
    createdAt: isoTime,
    updatedAt: isoTime,
    startedAt: nullableIso,
    completedAt: nullableIso,
  })
  .meta({ id: "ExecutionJob" });

export const ListJobsQuery = cursorPageQuery("jobs").extend({
  status: JobStatus.optional(),
  serviceId: z.string().min(1).max(100).optional(),
  dateFrom: timeParam.optional(),
  dateTo: timeParam.optional(),
});
export const JobListItem = ExecutionJob.extend({
  input: z.record(z.string(), z.unknown()).meta({
    description: "The input, its string members cut to 200 characters; GET /api/developers/jobs/{jobId} has it in full",
  }),
  inputTruncated: z.boolean().meta({ description: "True when a member of `input` was cut" }),
}).meta({ id: "JobListItem" });
export const JobList = z.object({ data: z.array(JobListItem), pagination: Pagination }).meta({ id: "JobList" });

export const ExecutionLog = z
  .object({
    sequence: z.number().int(),
    timestamp: isoTime,
    level: z.enum(logLevels),
    source: z.enum(logSources),
    message: z.string(),
    nodeId: z.string().optional(),
  })
  .meta({ id: "ExecutionLog" });

/** Where a job's event stream resumes: the last telemetry sequence received (0, the default, is the start). */
export const EventStreamCursor = intParam(
  0,
  999_999_999,
  0,
  "The last telemetry sequence received; the stream resumes after it",
);

/** A page of a job's log: the lines after `after` (a sequence; 0 = from the start), oldest first. */
export const JobLogsQuery = z.object({
  after: intParam(0, 999_999_999, 0, "Lines after this sequence: the last one read (0, the default, is the start)"),
  limit: intParam(1, limits.logPageLimitMax, limits.logPageLimitMax, "Lines per page"),
});

export const TelemetryEvent = z
  .object({
    eventId: z.string(),
    jobId: z.string(),
    sequence: z.number().int(),
    type: z.enum(eventTypes),
    timestamp: isoTime,
    attempt: z.number().int(),
    nodeId: z.string().optional(),
    data: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: "TelemetryEvent" });
export const TelemetryPage = z
  .object({ data: z.array(TelemetryEvent), pagination: Pagination })
  .meta({ id: "TelemetryPage" });

/**
 * One message of a job's event stream as its fields (Server-Sent Events text: `id:`, `event:`, `data:` with the
 * JSON below). Besides messages the stream sends `retry: 1000` once and `: keep-alive` comments.
 */
export const JobStreamMessage = z
  .discriminatedUnion("event", [
    z.object({
      event: z.literal("telemetry"),
      id: z.number().int().meta({ description: "The event's sequence: send the last one back as Last-Event-ID" }),
      data: TelemetryEvent,
    }),
    z
      .object({ event: z.literal("status"), data: ExecutionJob })
      .meta({ description: "The job, first and at each change of status; the stream ends after a final one" }),
    z.object({ event: z.literal("error"), data: z.object({ code: z.string(), message: z.string() }) }).meta({
      description:
        "The stream's credential was revoked or expired (code INVALID_API_KEY or UNAUTHENTICATED); the stream ends",
    }),
  ])
  .meta({ id: "JobStreamMessage" });

// ── Credits and usage ─────────────────────────────────────────────────────────────────────────────
export const CreditBalance = z
  .object({ balance: z.number().int(), currency: z.literal("credits"), updatedAt: isoTime })
  .meta({ id: "CreditBalance" });
export const CreditEntry = z
  .object({
    entryId: z.string(),
    type: z.enum(ledgerEntryTypes),
    amount: z.number().int(),
    balanceAfter: z.number().int(),
    jobId: z.string().nullable(),
    topUpId: z.string().nullable().meta({ description: "The top-up a `topup` entry credits" }),
    description: z.string(),
    createdAt: isoTime,
  })
  .meta({ id: "CreditEntry" });
export const CreditHistory = z
  .object({ data: z.array(CreditEntry), pagination: Pagination })
  .meta({ id: "CreditHistory" });

// ── Credit top-ups (CONTRACT §10) ─────────────────────────────────────────────────────────────────
const txHash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "Expected a transaction hash: 0x and 64 hexadecimal digits");
export const TopUpConfig = z
  .discriminatedUnion("enabled", [
    z.object({ enabled: z.literal(false) }),
    z.object({
      enabled: z.literal(true),
      chainId: z.number().int(),
      tokenAddress: address,
      tokenSymbol: z.string(),
      tokenDecimals: z.number().int(),
      treasuryAddress: address,
      creditsPerToken: z.number().int(),
      confirmations: z.number().int(),
      explorerUrl: z
        .string()
        .nullable()
        .meta({ description: "Block explorer base URL (PAYMENTS_EXPLORER_URL), for links to transactions" }),
    }),
  ])
  .meta({ id: "TopUpConfig" });
export const SubmitTopUpRequest = z
  .object({ chainId: z.number().int().positive(), txHash: txHash.transform((hash) => hash.toLowerCase()) })
  .meta({ id: "SubmitTopUpRequest" });
export const TopUp = z
  .object({
    topUpId: z.string(),
    chainId: z.number().int(),
    txHash: z.string(),
    from: address,
    tokenAmount: z.string().meta({ description: "The payment in the token's base units (a decimal integer string)" }),
    credits: z.number().int().meta({ description: "floor(tokenAmount × CREDITS_PER_TOKEN / 10^decimals)" }),
    status: z.enum(topUpStatuses),
    confirmations: z.number().int(),
    requiredConfirmations: z.number().int(),
    blockNumber: z.number().int().nullable(),
    failureReason: z.enum(topUpFailureReasons).nullable(),
    createdAt: isoTime,
    creditedAt: nullableIso,
  })
  .meta({ id: "TopUp" });
export const TopUpPage = z.object({ data: z.array(TopUp), pagination: Pagination }).meta({ id: "TopUpPage" });

export const MetricsQuery = z
  .object({ periodStart: timeParam.optional(), periodEnd: timeParam.optional() })
  .refine((q) => !q.periodStart || !q.periodEnd || q.periodStart <= q.periodEnd, {
    message: "periodStart must not be after periodEnd",
    path: ["periodStart"],
  });
export const UsageSummary = z
  .object({
    periodStart: isoTime,
    periodEnd: isoTime,
    totalJobs: z.number().int(),
    completedJobs: z.number().int(),
    failedJobs: z.number().int(),
    activeJobs: z.number().int(),
    creditsUsed: z.number().int(),
    successRate: z.number().min(0).max(1),
    avgDurationMs: z
      .number()
      .nullable()
      .describe("The exact mean of the final jobs' durations (completedAt − createdAt), in milliseconds."),
    p95DurationMs: z
      .number()
      .nullable()
      .describe(
        "The 95th percentile of the final jobs' durations (linear interpolation), approximate: within 2.5 % (or 1 ms) of the exact value, read from log-scale buckets kept with the usage rollups.",
      ),
    byService: z.array(
      z.object({
        serviceId: z.string(),
        jobs: z.number().int(),
        completed: z.number().int(),
        failed: z.number().int(),
        creditsUsed: z.number().int(),
      }),
    ),
    byDay: z.array(z.object({ date: z.string(), jobs: z.number().int(), creditsUsed: z.number().int() })),
    byKey: z
      .array(
        z.object({
          keyId: z.string().nullable(),
          name: z.string().nullable(),
          prefix: z.string().nullable(),
          jobs: z.number().int(),
          creditsUsed: z.number().int(),
        }),
      )
      .meta({
        description:
          "Jobs and credits used (charges minus refunds) per API key, most credits first; keyId null: jobs without a key",
      }),
  })
  .meta({ id: "UsageSummary" });

export const Liveness = z.object({ status: z.literal("ok") }).meta({ id: "Liveness" });
export const Health = z
  .object({
    status: z.enum(["ok", "starting", "unavailable"]),
    database: z.enum(["ok", "starting", "unavailable"]),
    nodes: z.number().int(),
    payments: z.enum(["ok", "degraded", "disabled"]).optional().meta({
      description:
        "Credit top-ups: degraded while the payments RPC does not answer or the payment watcher cannot record a payment it found (CONTRACT §10)",
    }),
    settler: z.enum(["ok", "low", "stuck", "unknown", "disabled"]).optional().meta({
      description:
        "Pay per call (x402, CONTRACT §15): the settler's ETH for gas, `low` below PAYMENTS_SETTLER_MIN_WEI, `stuck` while a settlement has waited more than three settlement timeouts to be mined (it is replaced at its nonce with a higher fee meanwhile), `unknown` while the RPC does not answer",
    }),
    transferLog: z.enum(["ok", "contradicted", "unchecked"]).optional().meta({
      description:
        "Pay per call (x402) only: whether this instance's own successful settlements show the token's Transfer log on the side of its AuthorizationUsed log that X402_TRANSFER_LOG says (`contradicted`: uses someone else submitted are not judged, their payments stay settling, until it is set right; `unchecked` before one is seen)",
    }),
  })
  .meta({ id: "Health" });

// ── Nodes you own (CONTRACT §12) ──────────────────────────────────────────────────────────────────
export const NodeState = z.enum(nodeStates).meta({
  id: "NodeState",
  description:
    "`pending` until the node first registers or heart-beats; `lost` once its heartbeats stopped for a lease",
});
export const CreateNodeRequest = z
  .object({
    name: z.string().trim().min(1).max(80),
    region: z.string().trim().min(1).max(40).optional(),
    serviceIds: z
      .array(z.string().min(1).max(100))
      .min(1)
      .max(100)
      .transform((ids) => [...new Set(ids)]),
    concurrency: z.number().int().min(1).max(64).optional(),
  })
  .strict();
export const Node = z
  .object({
    nodeId: z.string(),
    name: z.string(),
    region: z.string(),
    serviceIds: z.array(z.string()),
    concurrency: z.number().int(),
    state: NodeState,
    lastHeartbeatAt: nullableIso,
    runningJobs: z.number().int().min(0),
    createdAt: isoTime,
    revokedAt: nullableIso,
  })
  .meta({ id: "Node" });
export const NodeWithToken = Node.extend({
  token: z.string().meta({ description: "The node token (`node_…`): returned only here and on rotation" }),
}).meta({ id: "NodeWithToken" });
export const NodeList = z.object({ data: z.array(Node) }).meta({ id: "NodeList" });
/** The dashboard's Nodes page: the developer's own nodes with their last day, then the network's. */
export const OwnNodeActivity = Node.extend({
  completedLast24h: z.number().int().min(0),
  failedLast24h: z.number().int().min(0),
  medianRunMsByService: z.array(
    z.object({ serviceId: z.string(), jobs: z.number().int().min(0), medianRunMs: z.number().int().min(0) }),
  ),
}).meta({ id: "OwnNodeActivity" });
export const NetworkNode = Node.omit({ revokedAt: true, createdAt: true }).meta({ id: "NetworkNode" });
export const NodesOverview = z
  .object({ own: z.array(OwnNodeActivity), network: z.array(NetworkNode) })
  .meta({ id: "NodesOverview" });

// ── Wire types: what the domain's mappers return (a mapper that drifts from its schema does not compile) ──
export type Pagination = z.output<typeof Pagination>;
export type JobResult = z.output<typeof JobResult>;
export type JobError = z.output<typeof JobError>;
export type Profile = z.output<typeof Profile>;
export type ApiKey = z.output<typeof ApiKey>;
export type ApiKeyWithSecret = z.output<typeof ApiKeyWithSecret>;
export type CreditLimitDetails = z.output<typeof CreditLimitDetails>;
export type ExecutionService = z.output<typeof ExecutionService>;
export type ExecutionJob = z.output<typeof ExecutionJob>;
export type JobList = z.output<typeof JobList>;
export type ExecutionLog = z.output<typeof ExecutionLog>;
export type TelemetryEvent = z.output<typeof TelemetryEvent>;
export type TelemetryPage = z.output<typeof TelemetryPage>;
export type CreditBalance = z.output<typeof CreditBalance>;
export type CreditEntry = z.output<typeof CreditEntry>;
export type CreditHistory = z.output<typeof CreditHistory>;
export type TopUpConfig = z.output<typeof TopUpConfig>;
export type TopUp = z.output<typeof TopUp>;
export type TopUpPage = z.output<typeof TopUpPage>;
export type UsageSummary = z.output<typeof UsageSummary>;
export type Node = z.output<typeof Node>;
export type NodeWithToken = z.output<typeof NodeWithToken>;
export type OwnNodeActivity = z.output<typeof OwnNodeActivity>;
export type NetworkNode = z.output<typeof NetworkNode>;
export type NodesOverview = z.output<typeof NodesOverview>;

// ── Webhooks (CONTRACT §8) ────────────────────────────────────────────────────────────────────────
export const WebhookEventType = z.enum(webhookEventTypes).meta({ id: "WebhookEventType" });
const webhookEvents = z
  .array(WebhookEventType)
  .min(1)
  .transform((e) => [...new Set(e)]);
const webhookUrl = z.string().trim().min(1).max(2048);
export const CreateWebhookRequest = z
  .object({ url: webhookUrl, events: webhookEvents, description: z.string().trim().max(200).optional() })
  .strict();
export const UpdateWebhookRequest = z
  .object({
    url: webhookUrl.optional(),
    events: webhookEvents.optional(),
    description: z.string().trim().max(200).nullable().optional(),
    status: z.enum(["enabled", "disabled"]).optional(),
  })
  .strict();
export const WebhookEndpoint = z
  .object({
    endpointId: z.string(),
    url: z.string(),
    events: z.array(WebhookEventType),
    description: z.string().nullable(),
    status: z.enum(["enabled", "disabled"]),
    disabledReason: z.string().nullable(),
    createdAt: isoTime,
    updatedAt: isoTime,
  })
  .meta({ id: "WebhookEndpoint" });
export const WebhookEndpointWithSecret = WebhookEndpoint.extend({
  secret: z.string().meta({ description: "whsec_ + base64 of 32 bytes; returned only on creation and rotation" }),
}).meta({ id: "WebhookEndpointWithSecret" });
export const WebhookDelivery = z
  .object({
    deliveryId: z.string(),
    endpointId: z.string(),
    eventId: z.string().meta({ description: "The webhook-id header: the same on every attempt and redelivery" }),
    eventType: WebhookEventType,
    jobId: z.string().nullable(),
    status: z.enum(["pending", "succeeded", "failed"]),
    attempts: z.number().int(),
    lastResponseStatus: z.number().int().nullable(),
    lastError: z.string().nullable().meta({
      description:
        "e.g. BAD_STATUS, TIMEOUT, CONNECTION_FAILED: …; DESTINATION_FORBIDDEN (the policy refused the destination: failed at once, never retried)",
    }),
    lastLatencyMs: z.number().int().nullable(),
    nextAttemptAt: nullableIso,
    createdAt: isoTime,
    updatedAt: isoTime,
  })
  .meta({ id: "WebhookDelivery" });
export const WebhookDeliveryPage = z
  .object({ data: z.array(WebhookDelivery), pagination: Pagination })
  .meta({ id: "WebhookDeliveryPage" });
export const WebhookDeliveryAttempt = z
  .object({
    attemptedAt: isoTime,
    responseStatus: z.number().int().nullable().meta({ description: "null: no answer (see error)" }),
    responseBody: z
      .string()
      .nullable()
      .meta({ description: "The first 4 KB of the answer, as UTF-8 (a NUL byte as U+FFFD); null: no answer" }),
    latencyMs: z.number().int(),
    error: z.string().nullable().meta({ description: "As lastError; null for a 2xx answer" }),
  })
  .meta({ id: "WebhookDeliveryAttempt" });
export const WebhookDeliveryDetail = WebhookDelivery.omit({ attempts: true })
  .extend({
    attemptCount: z.number().int().meta({ description: "Every attempt so far (`attempts` lists the last 20)" }),
    request: z.object({
      headers: z.record(z.string(), z.string()).meta({
        description:
          "content-type and the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature) of the latest attempt; before the first, content-type and webhook-id",
      }),
      body: z.string().meta({ description: "The exact bytes sent (and signed), as a string" }),
    }),
    attempts: z
      .array(WebhookDeliveryAttempt)
      .meta({ description: "The last 20 attempts, oldest first: what the endpoint answered to each" }),
  })
  .meta({ id: "WebhookDeliveryDetail" });
/** What a receiver gets (documentation of the POST body; `data` is `{}` for webhook.test). */
// ── Execution receipts (CONTRACT §13) ─────────────────────────────────────────────────────────────
const digest = z
  .string()
  .regex(/^0x[0-9a-f]{64}$/)
  .meta({ description: "SHA-256 of the RFC 8785 (JCS) form, 0x and 64 lowercase hex digits" });
const millisecondsSinceEpoch = z.number().int().min(0).meta({ description: "Unix milliseconds" });
export const ExecutionReceipt = z
  .object({
    domain: z.object({ name: z.literal("Execution Network"), version: z.literal("1") }),
    types: z.object({
      ExecutionReceipt: z.array(z.object({ name: z.string(), type: z.string() })).readonly(),
    }),
    primaryType: z.literal("ExecutionReceipt"),
    message: z.object({
      issuer: z.string().meta({ description: "The deployment's public origin (the first APP_ORIGIN)" }),
      jobId: z.string(),
      serviceId: z.string(),
      developer: address.meta({ description: "The wallet of the job's account" }),
      inputDigest: digest,
      resultDigest: digest,
      nodeId: z.string().meta({ description: "The node that completed the job" }),
      ownNode: z.boolean().meta({ description: "That node belongs to the job's developer" }),
      attempt: z.number().int().min(0),
      creditCost: z.number().int().min(0).meta({ description: "The job's final creditCost" }),
      startedAt: millisecondsSinceEpoch,
      completedAt: millisecondsSinceEpoch,
    }),
    signature: z.string().regex(/^0x[0-9a-fA-F]+$/),
    signer: address.meta({ description: "The address that signed: one of GET /api/receipts/signers" }),
  })
  .meta({
    id: "ExecutionReceipt",
    description:
      "EIP-712 typed data signed by the deployment: exactly the arguments of viem's verifyTypedData, plus `signer`",
  });
export const ReceiptSigners = z
  .object({
    current: address.meta({ description: "The address new receipts are signed with" }),
    previous: z.array(address).meta({ description: "Addresses it replaced, newest first: their receipts still stand" }),
  })
  .meta({ id: "ReceiptSigners" });

export const WebhookEvent = z
  .object({
    type: WebhookEventType,
    timestamp: isoTime,
    data: z.object({
      job: ExecutionJob.optional(),
      sequence: z
        .number()
        .int()
        .optional()
        .meta({ description: "The job's telemetry sequence at this change: order events by it" }),
      balance: z
        .number()
        .int()
        .optional()
        .meta({ description: "credits.low: the balance after the charge that crossed the threshold" }),
      threshold: z.number().int().optional().meta({ description: "credits.low: the developer's lowBalanceThreshold" }),
      receipt: ExecutionReceipt.optional().meta({ description: "job.completed: the job's receipt (CONTRACT §13)" }),
    }),
  })
  .meta({ id: "WebhookEvent" });
