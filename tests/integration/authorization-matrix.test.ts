// The authorization matrix (issue #11): every route × every credential situation → the status and error code
// written in one table below, checked against the running app. The table is written by hand from
// CONTRACT §2, not derived from lib/http/routes.ts, so a declaration that drifts (a lost scope, a missing
// Origin check, another developer's object answering) fails here. The test also fails on a declared or
// documented route the table does not cover, and on a row for a route that no longer exists.
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { scopes, type Scope } from "@/lib/contract/vocabulary";
import { openApiDocument } from "@/lib/http/openapi";
import { routes } from "@/lib/http/routes";
import { allScopes, requestNonce, signIn, signUpDeveloper, siweMessage, type Developer } from "../support/developer";
import { submit } from "../support/jobs";
import { withDeveloper } from "../support/with-developer";

// ── The credential situations: the columns of the table ──

const situations = [
  // API-key situations (an API client sends no cookie and no Origin)
  "none",
  "malformed key",
  "unknown key",
  "revoked key",
  "expired key",
  "rotated-out key",
  // A key holding only this one scope
  "only services:read",
  "only services:execute",
  "only jobs:read",
  "only telemetry:read",
  "only credits:read",
  "only webhooks:manage",
  "only nodes:manage",
  // Someone else: another developer's every-scope key; an execution node's token
  "other developer's key",
  "node token",
  // Wallet sessions (cookie; Origin the app's own unless said otherwise)
  "session",
  "session, no Origin",
  "session, foreign Origin",
  "tampered cookie",
  "signed-out session",
  "other developer's session",
] as const;
type Situation = (typeof situations)[number];
/** One outcome per situation, in the columns' order (a row of the wrong length does not compile). */
type OutcomesOf<T extends readonly unknown[]> = { -readonly [I in keyof T]: string };
type Cells = OutcomesOf<typeof situations>;

// ── Outcomes: a success status, or an error status with its code ──
const K = "401 INVALID_API_KEY";
const U = "401 UNAUTHENTICATED";
const T = "401 INVALID_NODE_TOKEN";
const S = "403 INSUFFICIENT_SCOPE";
const O = "403 FORBIDDEN_ORIGIN";
const JOB = "404 JOB_NOT_FOUND";
const KEY = "404 KEY_NOT_FOUND";
const NF = "404 NOT_FOUND";
const NODE = "404 NODE_NOT_FOUND";
const HELD = "409 LEASE_LOST";
const EXISTS = "409 PROFILE_EXISTS";
/** The fixture job stays queued: an entitled caller learns it has no receipt yet. */
const UNFINISHED = "409 JOB_NOT_COMPLETED";
const every = (outcome: string) => situations.map(() => outcome) as unknown as Cells;

// ── What each route is asked: one request a fully entitled caller would make ──

interface Fixtures {
  alice: Developer;
  aliceKey: string;
  /** A job of Alice's that stays queued (no node serves its service). */
  jobId: string;
  endpointId: string;
  deliveryId: string;
  /** Keys of Alice's that the revoke and the rotate rows may act on (both repeatable). */
  keyToRevoke: string;
  keyToRotate: string;
  /** Nodes of Alice's for the rotate and the revoke rows (both repeatable while not revoked / at all). */
  nodeToRotate: string;
  nodeToRevoke: string;
}
interface Request {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Undoes what the request may have left behind (e.g. an endpoint it did not delete, against the cap). */
  cleanup?: () => Promise<unknown>;
}
type Build = (f: Fixtures) => Request | Promise<Request>;
interface Row {
  request: Build;
  expected: Cells;
  /** The request ends the session it carries: session columns use a fresh sign-in, not Alice's shared one. */
  endsSession?: boolean;
}
const row = (request: Build, expected: Cells, options: Pick<Row, "endsSession"> = {}): Row => ({
  request,
  expected,
  ...options,
});

const executeBody = { input: { text: "matrix" } };
const webhookBody = { url: "http://127.0.0.1:9/matrix", events: ["job.completed"] };

async function freshQueuedJob(f: Fixtures): Promise<string> {
  return (await submit(f.alice, f.aliceKey, "token-count", { text: "to cancel" })).jobId;
}
async function freshEndpoint(f: Fixtures): Promise<string> {
  const res = await f.alice.session("/api/developers/webhooks", { method: "POST", body: JSON.stringify(webhookBody) });
  if (res.status !== 201) throw new Error(`endpoint creation failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { endpointId: string }).endpointId;
}
/** A well-formed sign-in whose signature is not the message's signer's: refused after the Origin check. */
async function forgedSignIn(baseUrl: string): Promise<Request> {
  const { nonce } = await requestNonce(baseUrl);
  const message = siweMessage({
    address: privateKeyToAccount(generatePrivateKey()).address,
    host: new URL(baseUrl).host,
    nonce,
  });
  const signature = await privateKeyToAccount(generatePrivateKey()).signMessage({ message });
  return { method: "POST", path: "/api/auth/verify", body: { message, signature } };
}

/** Each cell deletes an endpoint of its own; those a refused request leaves are deleted after it (10 at most). */
const deleteFreshEndpoint: Build = async (f) => {
  const path = `/api/developers/webhooks/${await freshEndpoint(f)}`;
  return { method: "DELETE", path, cleanup: () => f.alice.session(path, { method: "DELETE" }) };
};

let baseUrl = "";
const get =
  (path: string | ((f: Fixtures) => string)): Build =>
  (f) => ({ method: "GET", path: typeof path === "string" ? path : path(f) });
const send =
  (
    method: string,
    path: string | ((f: Fixtures) => string | Promise<string>),
    body?: unknown,
    headers?: () => Record<string, string>,
  ): Build =>
  async (f) => ({ method, path: typeof path === "string" ? path : await path(f), body, headers: headers?.() });

// ── The matrix ──
// Columns: none malf unkn revk expd rotd | sv:r sv:x jb:r tl:r cr:r wh:m nd:m | othK node | sess noOr frOr tamp out othS
const matrix: Record<string, Row> = {
  // Public: every caller gets the same answer.
  "GET /api/auth/nonce": row(get("/api/auth/nonce"), every("200")),
  "GET /api/marketplace/services": row(get("/api/marketplace/services"), every("200")),
  "GET /api/health": row(get("/api/health"), every("200")),
  "GET /api/health/live": row(get("/api/health/live"), every("200")),
  "GET /api/openapi.json": row(get("/api/openapi.json"), every("200")),
  "GET /api/receipts/signers": row(get("/api/receipts/signers"), every("200")),
  // Behind METRICS_TOKEN, which this server does not set: not there for anyone (tests/integration/metrics.test.ts).
  "GET /api/metrics": row(get("/api/metrics"), every("404 NOT_FOUND")),

  // Sign-in: no credential, but only from the app's own Origin (a forged signature then fails with 401).
  "POST /api/auth/verify": row(
    () => forgedSignIn(baseUrl),
    [O, O, O, O, O, O, /**/ O, O, O, O, O, O, O, /**/ O, O, /**/ U, O, O, U, U, U],
  ),
  "GET /api/auth/session": row(get("/api/auth/session"), [
    U,
    U,
    U,
    U,
    U,
    U,
    /**/ U,
    U,
    U,
    U,
    U,
    U,
    U,
    /**/ U,
    U,
    /**/ "200",
    "200",
    "200",
    U,
    U,
    "200",
  ]),
  "POST /api/auth/logout": row(
    send("POST", "/api/auth/logout"),
    [O, O, O, O, O, O, /**/ O, O, O, O, O, O, O, /**/ O, O, /**/ "204", O, O, "204", "204", "204"],
    { endsSession: true },
  ),
  "POST /api/auth/logout-everywhere": row(
    send("POST", "/api/auth/logout-everywhere"),
    [O, O, O, O, O, O, /**/ O, O, O, O, O, O, O, /**/ O, O, /**/ "204", O, O, U, U, "204"],
    { endsSession: true },
  ),

  // Wallet-session routes: an API key is no credential here; mutations check the Origin first.
  "POST /api/developers": row(send("POST", "/api/developers", { name: "Again" }), [
    O,
    O,
    O,
    O,
    O,
    O,
    /**/ O,
    O,
    O,
    O,
    O,
    O,
    O,
    /**/ O,
    O,
    /**/ EXISTS,
    O,
    O,
    U,
    U,
    EXISTS,
  ]),
  "GET /api/developers/me": row(get("/api/developers/me"), [
    U,
    U,
    U,
    U,
    U,
    U,
    /**/ U,
    U,
    U,
    U,
    U,
    U,
    U,
    /**/ U,
    U,
    /**/ "200",
    "200",
    "200",
    U,
    U,
    "200",
  ]),
  "PATCH /api/developers/me": row(send("PATCH", "/api/developers/me", { name: "Alice Matrix" }), [
    O,
    O,
    O,
    O,
    O,
    O,
    /**/ O,
    O,
    O,
    O,
    O,
    O,
    O,
    /**/ O,
    O,
    /**/ "200",
    O,
    O,
    U,
    U,
    "200",
  ]),
  "POST /api/developers/keys": row(send("POST", "/api/developers/keys", { name: "matrix", scopes: ["jobs:read"] }), [
    O,
    O,
    O,
    O,
    O,
    O,
    /**/ O,
    O,
    O,
    O,
    O,
    O,
    O,
    /**/ O,
    O,
    /**/ "201",
    O,
    O,
    U,
    U,
    "201",
  ]),
  "GET /api/developers/keys": row(get("/api/developers/keys"), [
    U,
    U,
    U,
    U,
    U,
    U,
    /**/ U,
    U,
    U,
    U,
    U,
    U,
    U,
    /**/ U,
    U,
    /**/ "200",
    "200",
    "200",
    U,
    U,
    "200",
  ]),
  "DELETE /api/developers/keys/{keyId}": row(
    send("DELETE", (f) => `/api/developers/keys/${f.keyToRevoke}`),
    [O, O, O, O, O, O, /**/ O, O, O, O, O, O, O, /**/ O, O, /**/ "200", O, O, U, U, KEY],
  ),
  "PATCH /api/developers/keys/{keyId}": row(
    send("PATCH", (f) => `/api/developers/keys/${f.keyToRotate}`, { creditLimit: 50, creditLimitReset: "daily" }),
    [O, O, O, O, O, O, /**/ O, O, O, O, O, O, O, /**/ O, O, /**/ "200", O, O, U, U, KEY],
  ),
  "POST /api/developers/keys/{keyId}/rotate": row(
    send("POST", (f) => `/api/developers/keys/${f.keyToRotate}/rotate`, {}),
    [O, O, O, O, O, O, /**/ O, O, O, O, O, O, O, /**/ O, O, /**/ "200", O, O, U, U, KEY],
  ),
  "POST /api/dashboard/services/{serviceId}/run": row(
    send("POST", "/api/dashboard/services/token-count/run", executeBody, () => ({
      "idempotency-key": crypto.randomUUID(),
    })),
    [O, O, O, O, O, O, /**/ O, O, O, O, O, O, O, /**/ O, O, /**/ "202", O, O, U, U, "202"],
  ),

  // Execution: an API key with services:execute, nothing else.
  "POST /api/marketplace/services/{id}/execute": row(
    send("POST", "/api/marketplace/services/token-count/execute", executeBody),
    [K, K, K, K, K, K, /**/ S, "202", S, S, S, S, S, /**/ "202", K, /**/ K, K, K, K, K, K],
  ),
  "POST /api/developers/jobs": row(
    send("POST", "/api/developers/jobs", {
      type: "developer_job",
      payload: { serviceId: "token-count", input: { text: "matrix" } },
    }),
    [K, K, K, K, K, K, /**/ S, "202", S, S, S, S, S, /**/ "202", K, /**/ K, K, K, K, K, K],
  ),

  // Jobs: a key with the route's scope, or the session; another developer's job does not exist.
  "GET /api/developers/jobs": row(get("/api/developers/jobs"), [
    K,
    K,
    K,
    K,
    K,
    K,
    /**/ S,
    S,
    "200",
    S,
    S,
    S,
    S,
    /**/ "200",
    K,
    /**/ "200",
    "200",
    "200",
    K,
    K,
    "200",
  ]),
  "GET /api/developers/jobs/{jobId}": row(
    get((f) => `/api/developers/jobs/${f.jobId}`),
    [K, K, K, K, K, K, /**/ S, S, "200", S, S, S, S, /**/ JOB, K, /**/ "200", "200", "200", K, K, JOB],
  ),
  "GET /api/developers/jobs/{jobId}/logs": row(
    get((f) => `/api/developers/jobs/${f.jobId}/logs`),
    [K, K, K, K, K, K, /**/ S, S, "200", S, S, S, S, /**/ JOB, K, /**/ "200", "200", "200", K, K, JOB],
  ),
  "GET /api/developers/jobs/{jobId}/receipt": row(
    get((f) => `/api/developers/jobs/${f.jobId}/receipt`),
    [
      K,
      K,
      K,
      K,
      K,
      K,
      /**/ S,
      S,
      UNFINISHED,
      S,
      S,
      S,
      S,
      /**/ JOB,
      K,
      /**/ UNFINISHED,
      UNFINISHED,
      UNFINISHED,
      K,
      K,
      JOB,
    ],
  ),
  "GET /api/developers/jobs/{jobId}/telemetry": row(
    get((f) => `/api/developers/jobs/${f.jobId}/telemetry`),
    [K, K, K, K, K, K, /**/ S, S, S, "200", S, S, S, /**/ JOB, K, /**/ "200", "200", "200", K, K, JOB],
  ),
  "GET /api/developers/jobs/{jobId}/events": row(
    get((f) => `/api/developers/jobs/${f.jobId}/events`),
    [K, K, K, K, K, K, /**/ S, S, S, "200", S, S, S, /**/ JOB, K, /**/ "200", "200", "200", K, K, JOB],
  ),
  "POST /api/developers/jobs/{jobId}/cancel": row(
    send("POST", (f) => freshQueuedJob(f).then((id) => `/api/developers/jobs/${id}/cancel`)),
    [K, K, K, K, K, K, /**/ S, "200", S, S, S, S, S, /**/ JOB, K, /**/ "200", O, O, K, K, JOB],
  ),
  "GET /api/developers/jobs/{jobId}/webhook-deliveries": row(
    get((f) => `/api/developers/jobs/${f.jobId}/webhook-deliveries`),
    [K, K, K, K, K, K, /**/ S, S, S, S, S, "200", S, /**/ JOB, K, /**/ "200", "200", "200", K, K, JOB],
  ),

  // Webhooks: webhooks:manage or the session; another developer's endpoint does not exist.
  "POST /api/developers/webhooks": row(send("POST", "/api/developers/webhooks", webhookBody), [
    K,
    K,
    K,
    K,
    K,
    K,
    /**/ S,
    S,
    S,
    S,
    S,
    "201",
    S,
    /**/ "201",
    K,
    /**/ "201",
    O,
    O,
    K,
    K,
    "201",
  ]),
  "GET /api/developers/webhooks": row(get("/api/developers/webhooks"), [
    K,
    K,
    K,
    K,
    K,
    K,
    /**/ S,
    S,
    S,
    S,
    S,
    "200",
    S,
    /**/ "200",
    K,
    /**/ "200",
    "200",
    "200",
    K,
    K,
    "200",
  ]),
  "GET /api/developers/webhooks/{endpointId}": row(
    get((f) => `/api/developers/webhooks/${f.endpointId}`),
    [K, K, K, K, K, K, /**/ S, S, S, S, S, "200", S, /**/ NF, K, /**/ "200", "200", "200", K, K, NF],
  ),
  "PATCH /api/developers/webhooks/{endpointId}": row(
    send("PATCH", (f) => `/api/developers/webhooks/${f.endpointId}`, { description: "matrix" }),
    [K, K, K, K, K, K, /**/ S, S, S, S, S, "200", S, /**/ NF, K, /**/ "200", O, O, K, K, NF],
  ),
  "DELETE /api/developers/webhooks/{endpointId}": row(deleteFreshEndpoint, [
    K,
    K,
    K,
    K,
    K,
    K,
    /**/ S,
    S,
    S,
    S,
    S,
    "204",
    S,
    /**/ NF,
    K,
    /**/ "204",
    O,
    O,
    K,
    K,
    NF,
  ]),
  "POST /api/developers/webhooks/{endpointId}/rotate-secret": row(
    send("POST", (f) => `/api/developers/webhooks/${f.endpointId}/rotate-secret`),
    [K, K, K, K, K, K, /**/ S, S, S, S, S, "200", S, /**/ NF, K, /**/ "200", O, O, K, K, NF],
  ),
  "POST /api/developers/webhooks/{endpointId}/test": row(
    send("POST", (f) => `/api/developers/webhooks/${f.endpointId}/test`),
    [K, K, K, K, K, K, /**/ S, S, S, S, S, "202", S, /**/ NF, K, /**/ "202", O, O, K, K, NF],
  ),
  "GET /api/developers/webhooks/{endpointId}/deliveries": row(
    get((f) => `/api/developers/webhooks/${f.endpointId}/deliveries`),
    [K, K, K, K, K, K, /**/ S, S, S, S, S, "200", S, /**/ NF, K, /**/ "200", "200", "200", K, K, NF],
  ),
  "GET /api/developers/webhooks/{endpointId}/deliveries/{deliveryId}": row(
    get((f) => `/api/developers/webhooks/${f.endpointId}/deliveries/${f.deliveryId}`),
    [K, K, K, K, K, K, /**/ S, S, S, S, S, "200", S, /**/ NF, K, /**/ "200", "200", "200", K, K, NF],
  ),
  "POST /api/developers/webhooks/{endpointId}/deliveries/{deliveryId}/redeliver": row(
    send("POST", (f) => `/api/developers/webhooks/${f.endpointId}/deliveries/${f.deliveryId}/redeliver`),
    [K, K, K, K, K, K, /**/ S, S, S, S, S, "202", S, /**/ NF, K, /**/ "202", O, O, K, K, NF],
  ),

  // Nodes you own (CONTRACT §12): nodes:manage or the session; another developer's node does not exist.
  "POST /api/developers/nodes": row(
    send("POST", "/api/developers/nodes", { name: "matrix", serviceIds: ["token-count"] }),
    [K, K, K, K, K, K, /**/ S, S, S, S, S, S, "201", /**/ "201", K, /**/ "201", O, O, K, K, "201"],
  ),
  "GET /api/developers/nodes": row(get("/api/developers/nodes"), [
    K,
    K,
    K,
    K,
    K,
    K,
    /**/ S,
    S,
    S,
    S,
    S,
    S,
    "200",
    /**/ "200",
    K,
    /**/ "200",
    "200",
    "200",
    K,
    K,
    "200",
  ]),
  "GET /api/developers/nodes/{nodeId}": row(
    get((f) => `/api/developers/nodes/${f.nodeToRotate}`),
    [K, K, K, K, K, K, /**/ S, S, S, S, S, S, "200", /**/ NODE, K, /**/ "200", "200", "200", K, K, NODE],
  ),
  "POST /api/developers/nodes/{nodeId}/rotate-token": row(
    send("POST", (f) => `/api/developers/nodes/${f.nodeToRotate}/rotate-token`),
    [K, K, K, K, K, K, /**/ S, S, S, S, S, S, "200", /**/ NODE, K, /**/ "200", O, O, K, K, NODE],
  ),
  "DELETE /api/developers/nodes/{nodeId}": row(
    send("DELETE", (f) => `/api/developers/nodes/${f.nodeToRevoke}`),
    [K, K, K, K, K, K, /**/ S, S, S, S, S, S, "200", /**/ NODE, K, /**/ "200", O, O, K, K, NODE],
  ),
  "GET /api/dashboard/nodes": row(get("/api/dashboard/nodes"), [
    U,
    U,
    U,
    U,
    U,
    U,
    /**/ U,
    U,
    U,
    U,
    U,
    U,
    U,
    /**/ U,
    U,
    /**/ "200",
    "200",
    "200",
    U,
    U,
    "200",
  ]),

  // Credits and usage: credits:read or the session; each developer reads its own.
  "GET /api/credits/balance": row(get("/api/credits/balance"), [
    K,
    K,
    K,
    K,
    K,
    K,
    /**/ S,
    S,
    S,
    S,
    "200",
    S,
    S,
    /**/ "200",
    K,
    /**/ "200",
    "200",
    "200",
    K,
    K,
    "200",
  ]),
  "GET /api/credits/history": row(get("/api/credits/history"), [
    K,
    K,
    K,
    K,
    K,
    K,
    /**/ S,
    S,
    S,
    S,
    "200",
    S,
    S,
    /**/ "200",
    K,
    /**/ "200",
    "200",
    "200",
    K,
    K,
    "200",
  ]),
  // Top-ups (CONTRACT §10; this server has payments disabled): the config is public; paying is the session's
  // own act (its Origin checked); reading is credits:read or the session, each developer's own.
  "GET /api/credits/top-ups/config": row(get("/api/credits/top-ups/config"), every("200")),
  "POST /api/credits/top-ups": row(
    send("POST", "/api/credits/top-ups", { chainId: 1, txHash: `0x${"ab".repeat(32)}` }),
    [
      O,
      O,
      O,
      O,
      O,
      O,
      /**/ O,
      O,
      O,
      O,
      O,
      O,
      O,
      /**/ O,
      O,
      /**/ "409 PAYMENTS_DISABLED",
      O,
      O,
      U,
      U,
      "409 PAYMENTS_DISABLED",
    ],
  ),
  "GET /api/credits/top-ups": row(get("/api/credits/top-ups"), [
    K,
    K,
    K,
    K,
    K,
    K,
    /**/ S,
    S,
    S,
    S,
    "200",
    S,
    S,
    /**/ "200",
    K,
    /**/ "200",
    "200",
    "200",
    K,
    K,
    "200",
  ]),
  "GET /api/credits/top-ups/{topUpId}": row(get("/api/credits/top-ups/00000000-0000-4000-8000-000000000000"), [
    K,
    K,
    K,
    K,
    K,
    K,
    /**/ S,
    S,
    S,
    S,
    NF,
    S,
    S,
    /**/ NF,
    K,
    /**/ NF,
    NF,
    NF,
    K,
    K,
    NF,
  ]),
  "GET /api/developers/metrics": row(get("/api/developers/metrics"), [
    K,
    K,
    K,
    K,
    K,
    K,
    /**/ S,
    S,
    S,
    S,
    "200",
    S,
    S,
    /**/ "200",
    K,
    /**/ "200",
    "200",
    "200",
    K,
    K,
    "200",
  ]),

  // Execution nodes: their bearer token only; a job the node does not hold is refused as such.
  "POST /api/nodes/register": row(
    send("POST", "/api/nodes/register", { name: "matrix-node", serviceIds: ["language-detect"], concurrency: 1 }),
    [T, T, T, T, T, T, /**/ T, T, T, T, T, T, T, /**/ T, "200", /**/ T, T, T, T, T, T],
  ),
  "POST /api/nodes/heartbeat": row(send("POST", "/api/nodes/heartbeat", { activeJobIds: [] }), [
    T,
    T,
    T,
    T,
    T,
    T,
    /**/ T,
    T,
    T,
    T,
    T,
    T,
    T,
    /**/ T,
    "200",
    /**/ T,
    T,
    T,
    T,
    T,
    T,
  ]),
  "POST /api/nodes/claim": row(send("POST", "/api/nodes/claim", { max: 1, waitMs: 0 }), [
    T,
    T,
    T,
    T,
    T,
    T,
    /**/ T,
    T,
    T,
    T,
    T,
    T,
    T,
    /**/ T,
    "200",
    /**/ T,
    T,
    T,
    T,
    T,
    T,
  ]),
  "POST /api/nodes/jobs/{jobId}/start": row(
    send("POST", (f) => `/api/nodes/jobs/${f.jobId}/start`, { attempt: 1 }),
    [T, T, T, T, T, T, /**/ T, T, T, T, T, T, T, /**/ T, HELD, /**/ T, T, T, T, T, T],
  ),
  "POST /api/nodes/jobs/{jobId}/progress": row(
    send("POST", (f) => `/api/nodes/jobs/${f.jobId}/progress`, { attempt: 1, progress: 50 }),
    [T, T, T, T, T, T, /**/ T, T, T, T, T, T, T, /**/ T, HELD, /**/ T, T, T, T, T, T],
  ),
  "POST /api/nodes/jobs/{jobId}/complete": row(
    send("POST", (f) => `/api/nodes/jobs/${f.jobId}/complete`, {
      attempt: 1,
      result: { summary: "forged", output: {} },
    }),
    [T, T, T, T, T, T, /**/ T, T, T, T, T, T, T, /**/ T, HELD, /**/ T, T, T, T, T, T],
  ),
  "POST /api/nodes/jobs/{jobId}/fail": row(
    send("POST", (f) => `/api/nodes/jobs/${f.jobId}/fail`, {
      attempt: 1,
      code: "FORGED",
      message: "forged",
      retryable: false,
    }),
    [T, T, T, T, T, T, /**/ T, T, T, T, T, T, T, /**/ T, HELD, /**/ T, T, T, T, T, T],
  ),
  "POST /api/nodes/jobs/{jobId}/release": row(
    send("POST", (f) => `/api/nodes/jobs/${f.jobId}/release`, { attempt: 1 }),
    [T, T, T, T, T, T, /**/ T, T, T, T, T, T, T, /**/ T, HELD, /**/ T, T, T, T, T, T],
  ),
  // Last: the node stops receiving work, then says it stopped.
  "POST /api/nodes/drain": row(send("POST", "/api/nodes/drain"), [
    T,
    T,
    T,
    T,
    T,
    T,
    /**/ T,
    T,
    T,
    T,
    T,
    T,
    T,
    /**/ T,
    "204",
    /**/ T,
    T,
    T,
    T,
    T,
    T,
  ]),
  "POST /api/nodes/stop": row(send("POST", "/api/nodes/stop"), [
    T,
    T,
    T,
    T,
    T,
    T,
    /**/ T,
    T,
    T,
    T,
    T,
    T,
    T,
    /**/ T,
    "204",
    /**/ T,
    T,
    T,
    T,
    T,
    T,
  ]),
};

// ── The credentials behind each column ──

const methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const routeKey = (method: string, path: string) => `${method.toUpperCase()} ${path}`;
const declaredRoutes = () => Object.values(routes).map((r) => routeKey(r.method, r.path));
const documentedRoutes = () =>
  Object.entries(openApiDocument().paths ?? {}).flatMap(([path, item]) =>
    Object.keys(item ?? {})
      .filter((m) => methods.includes(m))
      .map((m) => routeKey(m, path)),
  );

const fixture = withDeveloper({
  embeddedNodes: 0,
  env: {
    // Queued jobs stay queued; no limit gets in the way of ~900 requests from one address and two accounts.
    ROUTING_TIMEOUT_MS: "600000",
    STARTER_CREDITS: "100000",
    RATE_LIMIT_PER_MINUTE: "0",
    ACCOUNT_RATE_PER_MINUTE: "0",
    SIGN_IN_RATE_PER_MINUTE: "0",
    WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
  },
});
const foreignOrigin = "https://evil.example";
let fixtures: Fixtures;
let credentials: Record<Situation, (endsSession: boolean) => Promise<Record<string, string>>>;

beforeAll(async () => {
  const { server, dev: alice, key: aliceKey } = fixture;
  baseUrl = server.baseUrl;
  const sessionHeaders = (cookie: string, origin?: string) => ({ cookie, ...(origin ? { origin } : {}) });
  const keyId = async (create: Promise<string>) => {
    const secret = await create;
    const keys = (await (await alice.session("/api/developers/keys")).json()) as { keyId: string; prefix: string }[];
    return { secret, keyId: (keys.find((k) => secret.startsWith(`dev_${k.prefix}`)) as { keyId: string }).keyId };
  };
  // The expired key's expiry: far enough ahead that a loaded machine still creates it in the future.
  const expiry = Date.now() + 3_000;
  const [bob, revoked, expired, rotated, toRevoke, toRotate, signedOut, scoped] = await Promise.all([
    signUpDeveloper(baseUrl, { name: "Bob" }),
    keyId(alice.createApiKey()),
    alice.createApiKey(allScopes, { expiresAt: new Date(expiry).toISOString() }),
    keyId(alice.createApiKey()),
    keyId(alice.createApiKey(["jobs:read"])),
    keyId(alice.createApiKey(["jobs:read"])),
    signIn(baseUrl, alice.account),
    Promise.all(scopes.map(async (scope) => [scope, await alice.createApiKey([scope])] as const)).then(
      (keys) => Object.fromEntries(keys) as Record<Scope, string>,
    ),
  ]);
  const bobKey = await bob.createApiKey();
  await alice.session(`/api/developers/keys/${revoked.keyId}`, { method: "DELETE" });
  const rotation = await alice.session(`/api/developers/keys/${rotated.keyId}/rotate`, {
    method: "POST",
    body: JSON.stringify({ gracePeriodSeconds: 1 }),
  });
  expect(rotation.status).toBe(200);
  const graceEnds = Date.now() + 1_000;
  expect(
    (await fetch(`${baseUrl}/api/auth/logout`, { method: "POST", headers: sessionHeaders(signedOut.cookie, baseUrl) }))
      .status,
  ).toBe(204);
  const { issueNodeToken } = await import("@/lib/network/coordinator");
  const node = await issueNodeToken("matrix-node");

  const job = await submit(alice, aliceKey, "token-count", { text: "the shared job" });
  const aliceNode = async () => {
    const res = await alice.session("/api/developers/nodes", {
      method: "POST",
      body: JSON.stringify({ name: "matrix", serviceIds: ["token-count"] }),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { nodeId: string }).nodeId;
  };
  const endpointId = await freshEndpoint({ alice } as Fixtures);
  const test = await alice.session(`/api/developers/webhooks/${endpointId}/test`, { method: "POST" });
  expect(test.status).toBe(202);
  fixtures = {
    alice,
    aliceKey,
    jobId: job.jobId,
    endpointId,
    deliveryId: ((await test.json()) as { deliveryId: string }).deliveryId,
    keyToRevoke: toRevoke.keyId,
    keyToRotate: toRotate.keyId,
    nodeToRotate: await aliceNode(),
    nodeToRevoke: await aliceNode(),
  };

  const key = (secret: string) => async () => ({ "x-api-key": secret });
  // A request that ends its session gets a session of its own, so Alice's and Bob's shared ones live on.
  const sessionOf = (cookie: string, origin?: string) => async (endsSession: boolean) =>
    sessionHeaders(endsSession ? (await signIn(baseUrl)).cookie : cookie, origin);
  credentials = {
    none: async () => ({}),
    "malformed key": key("not-a-key"),
    "unknown key": key(`dev_${"x".repeat(43)}`),
    "revoked key": key(revoked.secret),
    "expired key": key(expired),
    "rotated-out key": key(rotated.secret),
    "only services:read": key(scoped["services:read"]),
    "only services:execute": key(scoped["services:execute"]),
    "only jobs:read": key(scoped["jobs:read"]),
    "only telemetry:read": key(scoped["telemetry:read"]),
    "only credits:read": key(scoped["credits:read"]),
    "only webhooks:manage": key(scoped["webhooks:manage"]),
    "only nodes:manage": key(scoped["nodes:manage"]),
    "other developer's key": key(bobKey),
    "node token": async () => ({ authorization: `Bearer ${node.token}` }),
    session: sessionOf(alice.cookie, baseUrl),
    "session, no Origin": sessionOf(alice.cookie),
    "session, foreign Origin": sessionOf(alice.cookie, foreignOrigin),
    "tampered cookie": async () => sessionHeaders(`${alice.cookie.slice(0, -4)}AAAA`, baseUrl),
    "signed-out session": async () => sessionHeaders(signedOut.cookie, baseUrl),
    "other developer's session": sessionOf(bob.cookie, baseUrl),
  };
  // The expiry and the rotation's grace period have passed.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.max(expiry, graceEnds) + 200 - Date.now())));
});

/** "200", or "403 FORBIDDEN_ORIGIN" for an error in the contract's envelope (anything else says so). */
async function outcomeOf(res: Response): Promise<string> {
  if (res.status < 400) {
    await res.body?.cancel();
    return String(res.status);
  }
  const text = await res.text();
  try {
    const { error } = JSON.parse(text) as { error?: { code?: string; message?: string; requestId?: string } };
    if (error && typeof error.message === "string" && error.requestId === res.headers.get("x-request-id"))
      return `${res.status} ${error.code}`;
  } catch {
    // not JSON: reported below
  }
  return `${res.status} without the envelope: ${text.slice(0, 80)}`;
}

async function ask(name: string, situation: Situation): Promise<string> {
  const { request, endsSession = false } = matrix[name];
  const { method, path, body, headers, cleanup } = await request(fixtures);
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
      ...(await credentials[situation](endsSession)),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const outcome = await outcomeOf(res);
  await cleanup?.();
  return outcome;
}

describe("authorization matrix", () => {
  it("has one row for every declared and every documented route, and none for a route that no longer exists", () => {
    const routesOfTheApp = [...new Set([...declaredRoutes(), ...documentedRoutes()])].sort();
    expect(Object.keys(matrix).sort()).toEqual(routesOfTheApp);
  });

  it("has a column for a key holding only each scope there is", () => {
    expect(situations.filter((s) => s.startsWith("only ")).sort()).toEqual(
      scopes.map((scope) => `only ${scope}`).sort(),
    );
  });

  it.each(Object.keys(matrix))("%s answers each credential situation as the table says", async (name) => {
    const actual: Record<string, string> = {};
    // Small batches: the cells of one row share a server and, for streams, a per-account cap.
    for (let i = 0; i < situations.length; i += 5) {
      const batch = situations.slice(i, i + 5);
      const outcomes = await Promise.all(batch.map((situation) => ask(name, situation)));
      batch.forEach((situation, j) => (actual[situation] = outcomes[j]));
    }
    const expected = Object.fromEntries(situations.map((situation, i) => [situation, matrix[name].expected[i]]));
    expect(actual).toEqual(expected);
  });
});
