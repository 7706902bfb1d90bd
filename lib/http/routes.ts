// Every API route, declared once: method, path, credential, scope, schemas and errors. `withApi` enforces the
// declaration (guard, params, query, body) and the OpenAPI document is built from it.
//
// To add a route:
//   1. Add an entry below with `declareRoute({ method, path, summary, tags, credential, scope?, params?, query?,
//      headers?, body?, response, errors })`; `path` is the OpenAPI form of the folder (`[jobId]` → `{jobId}`).
//   2. In `app/api/<path>/route.ts`: `export const GET = withApi(routes.yourRoute, async (req, ctx) => ...)`;
//      `ctx.principal`, `ctx.params`, `ctx.query` and `ctx.body` arrive parsed and typed, and `ctx.json()`
//      only accepts the declared response schema.
//   tests/integration/route-declarations.test.ts fails while a route.ts and its declaration disagree.
import { z } from "zod";
import * as node from "@/lib/contract/node-protocol";
import * as s from "@/lib/contract/schemas";
import { paymentRefusalReasons, type Scope } from "@/lib/contract/vocabulary";
import { bodyLimitOf } from "@/lib/domain/catalog";
import { limits } from "@/lib/limits";

/**
 * Who may call: a wallet `session`, an `apiKey` (with `scope`), `either` of them (API key when `x-api-key` is
 * sent), an API key or, without any credential, an x402 payment for the call (`apiKeyOrPayment`, CONTRACT §15,
 * when pay per call is enabled), `jobReader` (`either`, or a paid call's `jt_` access token for its own job), an
 * execution `node` token, `origin` (no credential, but a mutation must come from the app itself:
 * CSRF defence) or `none`.
 */
export type Credential = "session" | "apiKey" | "apiKeyOrPayment" | "either" | "jobReader" | "node" | "origin" | "none";
export type Method = "get" | "post" | "put" | "patch" | "delete";

type Maybe<T> = T | undefined;
export type Output<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface BodySpec<B extends z.ZodType, P> {
  schema: B;
  /** An empty body reads as `{}` (e.g. rotate without options). */
  allowEmpty?: boolean;
  /** A limit other than the default, known from the path before reading. */
  maxBytes?: (params: P) => number;
  /** A limit known once the body is parsed: read up to `readUpTo` bytes, then check `limit(body)`. */
  maxBytesOfBody?: { readUpTo: number; limit: (body: z.output<B>) => number };
}

export interface RouteSpec<
  C extends Credential = Credential,
  P extends Maybe<z.ZodObject> = Maybe<z.ZodObject>,
  Q extends Maybe<z.ZodObject> = Maybe<z.ZodObject>,
  B extends Maybe<z.ZodType> = Maybe<z.ZodType>,
  R extends Maybe<z.ZodType> = Maybe<z.ZodType>,
> {
  method: Method;
  path: `/api/${string}`;
  summary: string;
  /** More than the summary says (the OpenAPI operation's description, before its scope). */
  description?: string;
  tags: string[];
  credential: C;
  /** Required scope for API keys (`apiKey` and `either` routes). */
  scope?: C extends "apiKey" | "apiKeyOrPayment" | "either" | "jobReader" ? Scope : never;
  params?: P;
  query?: Q;
  /** Documented request headers (read by the handler). */
  headers?: z.ZodObject;
  body?: B extends z.ZodType ? BodySpec<B, Output<P>> : never;
  response: { status: number; schema?: R; description?: string; contentType?: string; headers?: z.ZodObject };
  /** Error statuses besides 500. */
  errors: number[];
  /** What an error status means here, where the generic description would not say (its codes, its details). */
  errorNotes?: Partial<Record<number, string>>;
  /** Counted against a rate limit although its credential is not (`rateLimitedCredentials`), as sign-in is. */
  rateLimited?: true;
}

/** The credentials whose guard counts requests against a rate limit (guards.ts): the key's, the account's, a developer's node's. */
const rateLimitedCredentials: readonly Credential[] = [
  "session",
  "apiKey",
  "apiKeyOrPayment",
  "either",
  "jobReader",
  "node",
];

/** Whether a request to `route` can be refused with 429 RATE_LIMITED (and carries RateLimit-* headers). */
export const isRateLimited = (route: RouteSpec): boolean =>
  route.rateLimited === true || rateLimitedCredentials.includes(route.credential) || route.errors.includes(429);

const limitReached = (what: string) => `LIMIT_REACHED: ${what} (\`details.limit\`)`;

/** Identity that keeps each route's exact schema types, so its handler receives them typed. */
export function declareRoute<
  const C extends Credential,
  P extends Maybe<z.ZodObject> = undefined,
  Q extends Maybe<z.ZodObject> = undefined,
  B extends Maybe<z.ZodType> = undefined,
  R extends Maybe<z.ZodType> = undefined,
>(
  spec: RouteSpec<C, P, Q, B, R> &
    (C extends "apiKey" | "apiKeyOrPayment" | "either" | "jobReader" ? { scope: Scope } : unknown),
): RouteSpec<C, P, Q, B, R> {
  return spec;
}

const jobIdParam = z.object({ jobId: z.string().meta({ description: "Job id (UUID)" }) });
const keyIdParam = z.object({ keyId: z.string() });
const nodeIdParam = z.object({ nodeId: z.string().meta({ description: "Node id (UUID)" }) });
const endpointIdParam = z.object({ endpointId: z.string().meta({ description: "Webhook endpoint id (UUID)" }) });
const idempotencyHeaders = z.object({ "Idempotency-Key": s.IdempotencyKeyHeader.optional() });
/** The response headers of a list paged by cursor that keeps the reference's array body (`cursorPage`). */
const cursorPageHeaders = z.object({
  "X-Has-More": z.enum(["true", "false"]).meta({ description: "Whether more items follow this page" }),
  Link: z
    .string()
    .optional()
    .meta({ description: 'The next page (RFC 8288), when there is one: `<…?after=N&limit=L>; rel="next"`' }),
});
const submissionErrors = [400, 401, 402, 403, 404, 409, 413, 415, 422, 429];
const nodeErrors = [400, 401, 429];
const nodeReportErrors = [400, 401, 409, 429];
/** The one refusal of every report on a job the node does not hold (lib/engine/node-reports.ts). */
const notHeldDescription =
  "A job this node does not hold (it ended, moved on to another attempt or node, is another developer's, or no such job exists) → 409 `LEASE_LOST`, the same answer in every case: stop working on it.";
/** The node protocol's rate limit (lib/http/guards.ts, requireNode). */
const nodeRateDescription =
  "A developer's node past `NODE_RATE_PER_MINUTE` requests a minute (every route of the node protocol counts) → 429 `RATE_LIMITED` with `Retry-After`.";
/** A developer's node's attempt deadline (lib/engine/attempts.ts). */
const deadlineDescription =
  "An attempt on a developer's node ends at its `timeoutMs` plus one lease (`NODE_LEASE_MS`) after its assignment: past it the heartbeat renews its lease no more and lists it in `cancelJobIds`, and the attempt fails with `TIMEOUT` (retried while attempts remain).";
/** What nodes may report of one job (lib/limits.ts, lib/engine/appended-log.ts). */
const reportCapsDescription = `Each job keeps at most ${limits.jobReportedItems} provider requests and log lines reported by nodes, together, and ${limits.jobReportedBytes} bytes of them (log messages, provider requests' JSON), over all its attempts: past either cap one "logs truncated" line is stored and nothing more, and the report still succeeds (204).`;

export const routes = {
  // ── Auth ──
  issueNonce: declareRoute({
    method: "get",
    path: "/api/auth/nonce",
    summary: "Issue a single-use SIWE nonce bound to the session cookie",
    tags: ["Auth"],
    credential: "none",
    rateLimited: true,
    response: {
      status: 200,
      schema: s.NonceResponse,
      description: "A nonce good once, for 10 minutes; the cookie keeps this browser's 5 newest outstanding nonces",
    },
    errors: [],
  }),
  verifySignIn: declareRoute({
    method: "post",
    path: "/api/auth/verify",
    summary:
      "Verify a signed EIP-4361 message (Version 1, EIP-55 checksummed address, one of this browser's nonces) and start a wallet session",
    tags: ["Auth"],
    credential: "origin",
    rateLimited: true,
    body: { schema: s.VerifyRequest },
    response: { status: 200, schema: s.SessionResponse },
    errors: [400, 401, 403, 415],
  }),
  getSession: declareRoute({
    method: "get",
    path: "/api/auth/session",
    summary: "The current wallet session",
    tags: ["Auth"],
    credential: "session",
    response: { status: 200, schema: s.SessionResponse },
    errors: [401],
  }),
  signOut: declareRoute({
    method: "post",
    path: "/api/auth/logout",
    summary: "End the wallet session (revoked server-side)",
    tags: ["Auth"],
    credential: "origin",
    response: { status: 204, description: "Signed out" },
    errors: [403],
  }),
  signOutEverywhere: declareRoute({
    method: "post",
    path: "/api/auth/logout-everywhere",
    summary: "Sign out everywhere: revoke every session of this account",
    tags: ["Auth"],
    credential: "session",
    response: { status: 204, description: "Every session revoked" },
    errors: [401, 403],
  }),

  // ── Developers and keys ──
  createProfile: declareRoute({
    method: "post",
    path: "/api/developers",
    summary: "Create the developer profile",
    tags: ["Developers"],
    credential: "session",
    body: { schema: s.CreateProfileRequest },
    response: { status: 201, schema: s.Profile },
    errors: [400, 401, 403, 409, 415],
  }),
  getProfile: declareRoute({
    method: "get",
    path: "/api/developers/me",
    summary: "Read the developer profile",
    tags: ["Developers"],
    credential: "session",
    response: { status: 200, schema: s.Profile },
    errors: [401, 404],
  }),
  updateProfile: declareRoute({
    method: "patch",
    path: "/api/developers/me",
    summary: "Update the developer profile",
    tags: ["Developers"],
    credential: "session",
    body: { schema: s.UpdateProfileRequest },
    response: { status: 200, schema: s.Profile },
    errors: [400, 401, 403, 404, 415],
  }),
  createKey: declareRoute({
    method: "post",
    path: "/api/developers/keys",
    summary: "Create an API key (the secret is returned once)",
    tags: ["API keys"],
    credential: "session",
    body: { schema: s.CreateKeyRequest },
    response: { status: 201, schema: s.ApiKeyWithSecret },
    errors: [400, 401, 403, 404, 409, 415],
    errorNotes: {
      409: limitReached(`the account already holds ${limits.apiKeysPerAccount} live API keys; revoke one first`),
    },
  }),
  listKeys: declareRoute({
    method: "get",
    path: "/api/developers/keys",
    summary: "List API keys, newest first",
    tags: ["API keys"],
    credential: "session",
    response: { status: 200, schema: z.array(s.ApiKey) },
    errors: [401, 404],
  }),
  updateKey: declareRoute({
    method: "patch",
    path: "/api/developers/keys/{keyId}",
    summary: "Rename an API key, or set, change or remove its credit limit",
    tags: ["API keys"],
    credential: "session",
    params: keyIdParam,
    body: { schema: s.UpdateKeyRequest },
    response: { status: 200, schema: s.ApiKey },
    errors: [400, 401, 403, 404, 415],
  }),
  revokeKey: declareRoute({
    method: "delete",
    path: "/api/developers/keys/{keyId}",
    summary: "Revoke an API key (idempotent)",
    tags: ["API keys"],
    credential: "session",
    params: keyIdParam,
    response: { status: 200, schema: s.ApiKey },
    errors: [401, 403, 404],
  }),
  rotateKey: declareRoute({
    method: "post",
    path: "/api/developers/keys/{keyId}/rotate",
    summary: "Rotate an API key's secret, optionally with a grace period",
    tags: ["API keys"],
    credential: "session",
    params: keyIdParam,
    body: { schema: s.RotateKeyRequest, allowEmpty: true },
    response: { status: 200, schema: s.ApiKeyWithSecret },
    errors: [400, 401, 403, 404, 409],
  }),

  // ── Services and jobs ──
  listServices: declareRoute({
    method: "get",
    path: "/api/marketplace/services",
    summary: "List the AI Executions (public)",
    tags: ["Services"],
    credential: "none",
    response: { status: 200, schema: z.array(s.ExecutionService) },
    errors: [],
  }),
  executeService: declareRoute({
    method: "post",
    path: "/api/marketplace/services/{id}/execute",
    summary: "Submit a job for a service (asynchronous)",
    tags: ["Jobs"],
    credential: "apiKeyOrPayment",
    scope: "services:execute",
    params: z.object({ id: z.string() }),
    headers: idempotencyHeaders,
    body: { schema: s.ExecuteRequest, maxBytes: ({ id }) => bodyLimitOf(id) },
    response: { status: 202, schema: s.ExecutionJob },
    errors: submissionErrors,
    errorNotes: {
      402: "With an API key: INSUFFICIENT_CREDITS or KEY_CREDIT_LIMIT. Without any credential, when pay per call is enabled (x402, CONTRACT §15): the offer, with the `PAYMENT-REQUIRED` header (x402 v2, base64 JSON) and the x402 v1 body; after a refused payment the same, with `PAYMENT-RESPONSE` `{success: false, errorReason}`. A paid call answers 202 with the job plus `accessToken` (`jt_…`, shown once) and `PAYMENT-RESPONSE`.",
    },
  }),
  // The service's own limit applies, as on execute; it is known once the payload names the service.
  createJob: declareRoute({
    method: "post",
    path: "/api/developers/jobs",
    summary: "Create a developer_job (same as execute of payload.serviceId)",
    tags: ["Jobs"],
    credential: "apiKey",
    scope: "services:execute",
    headers: idempotencyHeaders,
    body: {
      schema: s.CreateJobRequest,
      maxBytesOfBody: { readUpTo: limits.ocrBodyBytes, limit: (body) => bodyLimitOf(body.payload.serviceId) },
    },
    response: { status: 202, schema: s.ExecutionJob },
    errors: submissionErrors,
  }),
  listJobs: declareRoute({
    method: "get",
    path: "/api/developers/jobs",
    summary: "List jobs, newest first",
    tags: ["Jobs"],
    credential: "either",
    scope: "jobs:read",
    query: s.ListJobsQuery,
    response: { status: 200, schema: s.JobList },
    errors: [400, 401, 403, 429],
  }),
  getJob: declareRoute({
    method: "get",
    path: "/api/developers/jobs/{jobId}",
    summary: "Read one job",
    tags: ["Jobs"],
    credential: "jobReader",
    scope: "jobs:read",
    params: jobIdParam,
    response: { status: 200, schema: s.ExecutionJob },
    errors: [401, 403, 404],
  }),
  getJobLogs: declareRoute({
    method: "get",
    path: "/api/developers/jobs/{jobId}/logs",
    summary: "The job's log lines, oldest first, a page at a time",
    description:
      'A page of at most `limit` lines after the sequence `after`. `X-Has-More: true` (and a `Link` header with `rel="next"`) when more lines follow: read on with `after` = the last line\'s sequence.',
    tags: ["Jobs"],
    credential: "jobReader",
    scope: "jobs:read",
    params: jobIdParam,
    query: s.JobLogsQuery,
    response: { status: 200, schema: z.array(s.ExecutionLog), headers: cursorPageHeaders },
    errors: [400, 401, 403, 404],
  }),
  getJobReceipt: declareRoute({
    method: "get",
    path: "/api/developers/jobs/{jobId}/receipt",
    summary: "The completed job's receipt: EIP-712 typed data signed by the deployment",
    description:
      "What ran, on which node, for whom, at what cost, with SHA-256 digests of the RFC 8785 form of the job's `input` and `result`, signed by the deployment (CONTRACT §13). The answer is exactly the arguments of viem's `verifyTypedData` plus `signer`, one of `GET /api/receipts/signers`. Issued once and never changed: every read answers the same bytes.",
    tags: ["Jobs"],
    credential: "jobReader",
    scope: "jobs:read",
    params: jobIdParam,
    response: { status: 200, schema: s.ExecutionReceipt },
    errors: [401, 403, 404, 409],
    errorNotes: {
      409: "JOB_NOT_COMPLETED: the job has not completed (`details.status`); only a completed job has a receipt",
    },
  }),
  getJobTelemetry: declareRoute({
    method: "get",
    path: "/api/developers/jobs/{jobId}/telemetry",
    summary: "The job's telemetry events by sequence",
    tags: ["Jobs"],
    credential: "jobReader",
    scope: "telemetry:read",
    params: jobIdParam,
    query: s.cursorPageQuery("telemetry"),
    response: { status: 200, schema: s.TelemetryPage },
    errors: [400, 401, 403, 404],
  }),
  streamJobEvents: declareRoute({
    method: "get",
    path: "/api/developers/jobs/{jobId}/events",
    summary:
      "Server-Sent Events: `telemetry` (id = sequence) and `status` messages until the final state; resumes from Last-Event-ID",
    tags: ["Jobs"],
    credential: "jobReader",
    scope: "telemetry:read",
    params: jobIdParam,
    // The header, as an EventSource sends it on reconnecting; the query form for a first connection from a browser.
    headers: z.object({ "Last-Event-ID": s.EventStreamCursor }),
    query: z.object({ lastEventId: s.EventStreamCursor }),
    response: {
      status: 200,
      description: "An event stream: one JobStreamMessage per message",
      contentType: "text/event-stream",
      schema: s.JobStreamMessage,
    },
    errors: [400, 401, 403, 404],
  }),
  // Cancelling is an execution action: an API key needs services:execute; the dashboard's session may too.
  cancelJob: declareRoute({
    method: "post",
    path: "/api/developers/jobs/{jobId}/cancel",
    summary: "Cancel a non-final job (→ failed, CANCELLED, refunded)",
    tags: ["Jobs"],
    credential: "either",
    scope: "services:execute",
    params: jobIdParam,
    response: { status: 200, schema: s.ExecutionJob },
    errors: [401, 403, 404, 409],
  }),

  // ── Dashboard ──
  // The playground's Run: the dashboard's server submits with the developer's own dashboard key (never sent
  // to the browser); the API's answers (202, 402, 409, 422 with issues…) come back as they are.
  runFromDashboard: declareRoute({
    method: "post",
    path: "/api/dashboard/services/{serviceId}/run",
    summary: "Dashboard: run a service through the developer's server-held dashboard key",
    tags: ["Dashboard"],
    credential: "session",
    params: z.object({ serviceId: z.string() }),
    headers: z.object({ "Idempotency-Key": s.IdempotencyKeyHeader }),
    body: { schema: s.ExecuteRequest, maxBytes: ({ serviceId }) => bodyLimitOf(serviceId) },
    response: { status: 202, schema: s.ExecutionJob },
    errors: [...submissionErrors, 503],
  }),
  // ── Webhooks (CONTRACT §8) ──
  createWebhook: declareRoute({
    method: "post",
    path: "/api/developers/webhooks",
    summary: "Register a webhook endpoint (at most 10; the secret is returned once)",
    tags: ["Webhooks"],
    credential: "either",
    scope: "webhooks:manage",
    body: { schema: s.CreateWebhookRequest },
    response: { status: 201, schema: s.WebhookEndpointWithSecret },
    errors: [400, 401, 403, 404, 409, 415],
    errorNotes: {
      409: limitReached(`the developer already has ${limits.webhookEndpointsPerDeveloper} webhook endpoints`),
    },
  }),
  listWebhooks: declareRoute({
    method: "get",
    path: "/api/developers/webhooks",
    summary: "List webhook endpoints, newest first",
    tags: ["Webhooks"],
    credential: "either",
    scope: "webhooks:manage",
    response: { status: 200, schema: z.array(s.WebhookEndpoint) },
    errors: [401, 403],
  }),
  getWebhook: declareRoute({
    method: "get",
    path: "/api/developers/webhooks/{endpointId}",
    summary: "Read a webhook endpoint",
    tags: ["Webhooks"],
    credential: "either",
    scope: "webhooks:manage",
    params: endpointIdParam,
    response: { status: 200, schema: s.WebhookEndpoint },
    errors: [401, 403, 404],
  }),
  updateWebhook: declareRoute({
    method: "patch",
    path: "/api/developers/webhooks/{endpointId}",
    summary: "Update a webhook endpoint (url, events, description, enabled/disabled)",
    tags: ["Webhooks"],
    credential: "either",
    scope: "webhooks:manage",
    params: endpointIdParam,
    body: { schema: s.UpdateWebhookRequest },
    response: { status: 200, schema: s.WebhookEndpoint },
    errors: [400, 401, 403, 404, 415],
  }),
  deleteWebhook: declareRoute({
    method: "delete",
    path: "/api/developers/webhooks/{endpointId}",
    summary: "Delete a webhook endpoint; its pending deliveries are dropped",
    tags: ["Webhooks"],
    credential: "either",
    scope: "webhooks:manage",
    params: endpointIdParam,
    response: { status: 204, description: "Deleted" },
    errors: [401, 403, 404],
  }),
  rotateWebhookSecret: declareRoute({
    method: "post",
    path: "/api/developers/webhooks/{endpointId}/rotate-secret",
    summary: "New signing secret (returned once); the previous one also signs for 24 h",
    tags: ["Webhooks"],
    credential: "either",
    scope: "webhooks:manage",
    params: endpointIdParam,
    response: { status: 200, schema: s.WebhookEndpointWithSecret },
    errors: [401, 403, 404],
  }),
  sendWebhookTest: declareRoute({
    method: "post",
    path: "/api/developers/webhooks/{endpointId}/test",
    summary: "Send a webhook.test event to the endpoint",
    tags: ["Webhooks"],
    credential: "either",
    scope: "webhooks:manage",
    params: endpointIdParam,
    response: { status: 202, schema: s.WebhookDelivery },
    errors: [401, 403, 404],
  }),
  listWebhookDeliveries: declareRoute({
    method: "get",
    path: "/api/developers/webhooks/{endpointId}/deliveries",
    summary: "The endpoint's deliveries, newest first",
    tags: ["Webhooks"],
    credential: "either",
    scope: "webhooks:manage",
    params: endpointIdParam,
    query: s.cursorPageQuery("deliveries"),
    response: { status: 200, schema: s.WebhookDeliveryPage },
    errors: [400, 401, 403, 404],
  }),
  getWebhookDelivery: declareRoute({
    method: "get",
    path: "/api/developers/webhooks/{endpointId}/deliveries/{deliveryId}",
    summary: "A delivery with what was sent (headers and exact body) and its last 20 attempts' answers",
    tags: ["Webhooks"],
    credential: "either",
    scope: "webhooks:manage",
    params: endpointIdParam.extend({ deliveryId: z.string() }),
    response: { status: 200, schema: s.WebhookDeliveryDetail },
    errors: [401, 403, 404],
  }),
  redeliverWebhook: declareRoute({
    method: "post",
    path: "/api/developers/webhooks/{endpointId}/deliveries/{deliveryId}/redeliver",
    summary: "Send the same event (same webhook-id) again",
    tags: ["Webhooks"],
    credential: "either",
    scope: "webhooks:manage",
    params: endpointIdParam.extend({ deliveryId: z.string() }),
    response: { status: 202, schema: s.WebhookDelivery },
    errors: [401, 403, 404],
  }),
  listJobWebhookDeliveries: declareRoute({
    method: "get",
    path: "/api/developers/jobs/{jobId}/webhook-deliveries",
    summary: "One job's webhook deliveries to all endpoints, newest first (at most 100)",
    tags: ["Webhooks"],
    credential: "either",
    scope: "webhooks:manage",
    params: jobIdParam,
    response: { status: 200, schema: z.array(s.WebhookDelivery) },
    errors: [401, 403, 404],
  }),

  // ── Nodes you own (CONTRACT §12) ──
  createNode: declareRoute({
    method: "post",
    path: "/api/developers/nodes",
    summary:
      "Add a node of your own (at most 20); its token (returned once) authenticates the node protocol, /api/nodes/*. Start it with `npx @execution-network/node --url <api> --token <token>`",
    tags: ["Nodes you own"],
    credential: "either",
    scope: "nodes:manage",
    body: { schema: s.CreateNodeRequest },
    response: { status: 201, schema: s.NodeWithToken },
    errors: [400, 401, 403, 404, 409, 415],
    errorNotes: {
      409: limitReached(`the developer already has ${limits.nodesPerDeveloper} nodes that are not revoked`),
    },
  }),
  listNodes: declareRoute({
    method: "get",
    path: "/api/developers/nodes",
    summary: "Your nodes, newest first (revoked ones included)",
    tags: ["Nodes you own"],
    credential: "either",
    scope: "nodes:manage",
    response: { status: 200, schema: s.NodeList },
    errors: [401, 403],
  }),
  getNode: declareRoute({
    method: "get",
    path: "/api/developers/nodes/{nodeId}",
    summary: "Read one of your nodes (another developer's node is 404 NODE_NOT_FOUND)",
    tags: ["Nodes you own"],
    credential: "either",
    scope: "nodes:manage",
    params: nodeIdParam,
    response: { status: 200, schema: s.Node },
    errors: [401, 403, 404],
  }),
  rotateNodeToken: declareRoute({
    method: "post",
    path: "/api/developers/nodes/{nodeId}/rotate-token",
    summary: "A new node token (returned once); the old one fails at once. A revoked node: 409 NODE_REVOKED",
    tags: ["Nodes you own"],
    credential: "either",
    scope: "nodes:manage",
    params: nodeIdParam,
    response: { status: 200, schema: s.NodeWithToken },
    errors: [401, 403, 404, 409],
  }),
  revokeNode: declareRoute({
    method: "delete",
    path: "/api/developers/nodes/{nodeId}",
    summary:
      "Revoke a node (idempotent): its token fails at once, and the jobs it was running are routed again as a new attempt, not charged again",
    tags: ["Nodes you own"],
    credential: "either",
    scope: "nodes:manage",
    params: nodeIdParam,
    response: { status: 200, schema: s.Node },
    errors: [401, 403, 404],
  }),
  nodesOverview: declareRoute({
    method: "get",
    path: "/api/dashboard/nodes",
    summary:
      "Dashboard: your nodes with their last 24 hours (completed, failed, median run per service), then the network's recently seen nodes",
    tags: ["Dashboard"],
    credential: "session",
    response: { status: 200, schema: s.NodesOverview },
    errors: [401],
  }),

  // ── Credits and usage ──
  getCreditBalance: declareRoute({
    method: "get",
    path: "/api/credits/balance",
    summary: "Credit balance",
    tags: ["Credits"],
    credential: "either",
    scope: "credits:read",
    response: { status: 200, schema: s.CreditBalance },
    errors: [401, 403],
  }),
  listCreditHistory: declareRoute({
    method: "get",
    path: "/api/credits/history",
    summary: "Credit history, newest first",
    tags: ["Credits"],
    credential: "either",
    scope: "credits:read",
    query: s.cursorPageQuery("creditEntries"),
    response: { status: 200, schema: s.CreditHistory },
    errors: [400, 401, 403],
  }),
  getTopUpConfig: declareRoute({
    method: "get",
    path: "/api/credits/top-ups/config",
    summary: "Whether credit top-ups are enabled, and how to pay: chain, token, treasury, price, confirmations",
    tags: ["Credits"],
    credential: "none",
    response: { status: 200, schema: s.TopUpConfig },
    errors: [503],
  }),
  submitTopUp: declareRoute({
    method: "post",
    path: "/api/credits/top-ups",
    summary:
      "Record a payment to the treasury sent from the signed-in wallet (201 recorded now, 200 recorded before); credited once confirmed",
    description: [
      "The payment is the signed-in wallet's transfers of the token to the treasury in that transaction (every sender's transfers in a transaction are that sender's payment). A hash already recorded answers its top-up (200); one that failed as `DROPPED` is verified again.",
      `422 \`INVALID_PAYMENT\` with \`details.reason\` one of ${paymentRefusalReasons.map((r) => `\`${r}\``).join(", ")}; \`AMOUNT_OUT_OF_RANGE\`: worth more credits than a balance holds exactly (2^53 − 1), recorded as failed and never credited.`,
      "409 `LIMIT_REACHED`: 20 top-ups of this developer are not yet mined (checked before the chain is asked); 409 `PAYMENT_CLAIMED`: the transaction's payments are recorded for another account; 409 `PAYMENTS_DISABLED`; 503 `UNAVAILABLE` with `Retry-After` when the RPC does not answer (nothing recorded).",
    ].join("\n\n"),
    tags: ["Credits"],
    credential: "session",
    body: { schema: s.SubmitTopUpRequest },
    response: { status: 201, schema: s.TopUp },
    errors: [400, 401, 403, 409, 415, 422, 503],
    errorNotes: {
      409: `PAYMENTS_DISABLED: top-ups are not configured here; PAYMENT_CLAIMED: another account recorded this payment; ${limitReached("too many of your top-ups are waiting to be mined")}`,
    },
  }),
  listTopUps: declareRoute({
    method: "get",
    path: "/api/credits/top-ups",
    summary: "Credit top-ups, newest first",
    tags: ["Credits"],
    credential: "either",
    scope: "credits:read",
    query: s.cursorPageQuery("topUps"),
    response: { status: 200, schema: s.TopUpPage },
    errors: [400, 401, 403],
  }),
  getTopUp: declareRoute({
    method: "get",
    path: "/api/credits/top-ups/{topUpId}",
    summary: "Read one credit top-up",
    tags: ["Credits"],
    credential: "either",
    scope: "credits:read",
    params: z.object({ topUpId: z.string().meta({ description: "Top-up id (UUID)" }) }),
    response: { status: 200, schema: s.TopUp },
    errors: [401, 403, 404],
  }),
  getUsageSummary: declareRoute({
    method: "get",
    path: "/api/developers/metrics",
    summary: "UsageSummary for a period (default: last 30 days)",
    description:
      "Default period: from the start of the UTC hour holding now − 30 days (up to 59 minutes more than 30 days) " +
      "to now; periodStart and periodEnd in the response give the window used. The period is read from rollups kept " +
      "as the work is written: whole UTC days from daily rollups, the whole hours of a partial day from hourly ones, " +
      "the whole minutes of a partial hour from per-minute ones (the last day, hour and minute of a period ending at " +
      "or after now are read whole); a partial minute of an explicit period is counted from its rows, so every " +
      "figure is exact to the millisecond.",
    tags: ["Credits"],
    credential: "either",
    scope: "credits:read",
    query: s.MetricsQuery,
    response: { status: 200, schema: s.UsageSummary },
    errors: [400, 401, 403],
  }),

  // ── Operations ──
  health: declareRoute({
    method: "get",
    path: "/api/health",
    summary: "Health: database and live node count",
    tags: ["Operations"],
    credential: "none",
    response: { status: 200, schema: s.Health },
    errors: [503],
  }),
  receiptSigners: declareRoute({
    method: "get",
    path: "/api/receipts/signers",
    summary: "The addresses whose receipts this deployment stands behind (public)",
    description:
      "`current` signs new receipts; `previous` lists the addresses it replaced (a rotation), whose receipts still stand.",
    tags: ["Operations"],
    credential: "none",
    response: { status: 200, schema: s.ReceiptSigners },
    errors: [],
  }),
  liveness: declareRoute({
    method: "get",
    path: "/api/health/live",
    summary: "Liveness: the process answers (no database round trip)",
    tags: ["Operations"],
    credential: "none",
    response: { status: 200, schema: s.Liveness, description: "Alive" },
    errors: [],
  }),
  metrics: declareRoute({
    method: "get",
    path: "/api/metrics",
    summary: "Prometheus metrics (CONTRACT §14)",
    description:
      "The Prometheus text exposition format, with `Authorization: Bearer <METRICS_TOKEN>`; 404 when METRICS_TOKEN is not set. Counters and histograms are this instance's since it started; the gauges (`execution_jobs_active`, `execution_nodes_live`) describe the whole deployment.",
    tags: ["Operations"],
    credential: "none",
    response: { status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", description: "The metrics" },
    errors: [401, 404],
  }),
  openApiDocument: declareRoute({
    method: "get",
    path: "/api/openapi.json",
    summary: "This document",
    tags: ["Operations"],
    credential: "none",
    response: { status: 200, description: "OpenAPI 3.1 document" },
    errors: [],
  }),

  // ── Execution nodes ──
  registerNode: declareRoute({
    method: "post",
    path: "/api/nodes/register",
    summary: "Node: register (or re-register) and declare services and concurrency",
    description: nodeRateDescription,
    tags: ["Nodes"],
    credential: "node",
    body: { schema: node.RegisterNodeRequest },
    response: { status: 200, schema: node.NodeSession },
    errors: nodeErrors,
  }),
  nodeHeartbeat: declareRoute({
    method: "post",
    path: "/api/nodes/heartbeat",
    summary: "Node: heartbeat; extends leases; returns jobs to stop",
    description: `${deadlineDescription} ${nodeRateDescription}`,
    tags: ["Nodes"],
    credential: "node",
    body: { schema: node.HeartbeatRequest },
    response: { status: 200, schema: node.HeartbeatResponse },
    errors: nodeErrors,
  }),
  claimJobs: declareRoute({
    method: "post",
    path: "/api/nodes/claim",
    summary: "Node: claim up to `max` jobs, long-polling up to `waitMs`",
    description: nodeRateDescription,
    tags: ["Nodes"],
    credential: "node",
    body: { schema: node.ClaimRequest },
    response: { status: 200, schema: node.ClaimResponse },
    errors: nodeErrors,
  }),
  drainNode: declareRoute({
    method: "post",
    path: "/api/nodes/drain",
    summary: "Node: stop receiving work (graceful shutdown)",
    description: nodeRateDescription,
    tags: ["Nodes"],
    credential: "node",
    response: { status: 204, description: "Draining" },
    errors: [401, 429],
  }),
  stopNode: declareRoute({
    method: "post",
    path: "/api/nodes/stop",
    summary: "Node: stopped cleanly (shown offline, not lost)",
    description: `The node finished or released its jobs and sends nothing more until it registers again; anything it still holds is routed again. ${nodeRateDescription}`,
    tags: ["Nodes"],
    credential: "node",
    response: { status: 204, description: "Stopped" },
    errors: [401, 429],
  }),
  startExecution: declareRoute({
    method: "post",
    path: "/api/nodes/jobs/{jobId}/start",
    summary: "Node: execution started",
    description: `${notHeldDescription} ${nodeRateDescription}`,
    tags: ["Nodes"],
    credential: "node",
    params: jobIdParam,
    body: { schema: node.StartRequest },
    response: { status: 204, description: "Recorded" },
    errors: nodeReportErrors,
  }),
  reportProgress: declareRoute({
    method: "post",
    path: "/api/nodes/jobs/{jobId}/progress",
    summary: "Node: progress, provider requests and log lines",
    description: `${reportCapsDescription} ${notHeldDescription} ${nodeRateDescription}`,
    tags: ["Nodes"],
    credential: "node",
    params: jobIdParam,
    body: { schema: node.ProgressRequest },
    response: { status: 204, description: "Recorded" },
    errors: nodeReportErrors,
  }),
  completeExecution: declareRoute({
    method: "post",
    path: "/api/nodes/jobs/{jobId}/complete",
    summary: "Node: result",
    description: `${reportCapsDescription} ${notHeldDescription} ${nodeRateDescription}`,
    tags: ["Nodes"],
    credential: "node",
    params: jobIdParam,
    body: { schema: node.CompleteRequest },
    response: { status: 204, description: "Recorded" },
    errors: nodeReportErrors,
  }),
  failExecution: declareRoute({
    method: "post",
    path: "/api/nodes/jobs/{jobId}/fail",
    summary: "Node: attempt failed (retryable or not)",
    description: `${notHeldDescription} ${nodeRateDescription}`,
    tags: ["Nodes"],
    credential: "node",
    params: jobIdParam,
    body: { schema: node.FailRequest },
    response: { status: 204, description: "Recorded" },
    errors: nodeReportErrors,
  }),
  releaseJob: declareRoute({
    method: "post",
    path: "/api/nodes/jobs/{jobId}/release",
    summary: "Node: give a job back (routed again as a new attempt)",
    description: `A developer's node's release ends the attempt as a retryable failure (code RELEASED): past the job's attempts it fails, refunded. ${notHeldDescription} ${nodeRateDescription}`,
    tags: ["Nodes"],
    credential: "node",
    params: jobIdParam,
    body: { schema: node.ReleaseRequest },
    response: { status: 204, description: "Recorded" },
    errors: nodeReportErrors,
  }),
};

export type RouteName = keyof typeof routes;
