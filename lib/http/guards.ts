// One guard per credential context: wallet session, API key (+ scope), either, and execution node.
import { authenticateApiKey, type ApiKeyPrincipal } from "@/lib/domain/api-keys";
import { DomainError } from "@/lib/domain/errors";
import type { Scope } from "@/lib/contract/vocabulary";
import { appOrigins, x402Config } from "@/lib/env";
import { limits } from "@/lib/limits";
import { clientAddressOf } from "./client-address";
import { jobOfAccessToken } from "@/lib/payments/x402/store";
import { consumeRateLimit } from "./rate-limit";
import { readSession, signedInOf, type SessionData } from "./session";

export interface SessionPrincipal {
  kind: "session";
  accountId: string;
  address: string;
  chainId: number;
  session: SessionData;
}

export interface KeyPrincipal extends ApiKeyPrincipal {
  kind: "apiKey";
}

export type DeveloperPrincipal = SessionPrincipal | KeyPrincipal;

/** A paid call's access token (`Authorization: Bearer jt_…`, CONTRACT §15): it reads that one job and nothing else. */
export interface JobTokenPrincipal {
  kind: "jobToken";
  accountId: string;
  jobId: string;
}

/** A caller with neither an API key nor a session, on a route it may pay for per call (x402, CONTRACT §15). */
export interface PayerPrincipal {
  kind: "payment";
}

const mutating = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Cookie-authenticated mutations must come from the app itself (CSRF defence, CONTRACT §2). */
export function checkOrigin(req: Request): void {
  if (!mutating.has(req.method)) return;
  const origin = req.headers.get("origin");
  if (!origin || !appOrigins().includes(origin)) {
    throw new DomainError("FORBIDDEN_ORIGIN", "This request must come from the Execution Network app itself.");
  }
}

/** Wallet session routes. Checks Origin on mutations, then the session. */
export async function requireSession(req: Request): Promise<SessionPrincipal> {
  checkOrigin(req);
  const session = await readSession(req);
  const signedIn = signedInOf(session);
  if (!signedIn) throw new DomainError("UNAUTHENTICATED", "Sign in with your wallet to continue.");
  await consumeRateLimit(req, "account", signedIn.accountId, limits.accountRequestsPerMinute);
  return { kind: "session", ...signedIn, session };
}

/** API-key routes: 401 for a missing/unknown/revoked/expired key, 403 without `scope`, 429 over the rate. */
export async function requireApiKey(req: Request, scope: Scope): Promise<KeyPrincipal> {
  const secret = req.headers.get("x-api-key");
  const principal = secret ? await authenticateApiKey(secret) : null;
  if (!principal) throw new DomainError("INVALID_API_KEY", "The API key is missing, unknown, revoked or expired.");
  await consumeRateLimit(req, "key", principal.keyId, limits.apiKeyRequestsPerMinute);
  await consumeRateLimit(req, "account", principal.accountId, limits.accountRequestsPerMinute);
  if (!principal.scopes.includes(scope)) {
    throw new DomainError("INSUFFICIENT_SCOPE", `This API key lacks the ${scope} scope.`, { requiredScope: scope });
  }
  return { kind: "apiKey", ...principal };
}

/**
 * Routes a caller may pay for per call: an API key as on any API-key route, or, with pay per call enabled,
 * no credential at all (neither a key nor a session): the payment is the credential, checked by the handler.
 */
export async function requireApiKeyOrPayment(req: Request, scope: Scope): Promise<KeyPrincipal | PayerPrincipal> {
  if (!req.headers.has("x-api-key") && x402Config() && !signedInOf(await readSession(req))) return { kind: "payment" };
  return requireApiKey(req, scope);
}

/** Read routes open to both contexts: an API key when `x-api-key` is sent, else the wallet session. */
export async function requireDeveloper(req: Request, scope: Scope): Promise<DeveloperPrincipal> {
  if (req.headers.has("x-api-key")) return requireApiKey(req, scope);
  const session = await readSession(req);
  const signedIn = signedInOf(session);
  if (signedIn) {
    checkOrigin(req);
    await consumeRateLimit(req, "account", signedIn.accountId, limits.accountRequestsPerMinute);
    return { kind: "session", ...signedIn, session };
  }
  throw new DomainError("INVALID_API_KEY", "Send an API key in x-api-key (or sign in to the dashboard).");
}

/**
 * A job's own read routes (the job, its events, logs and telemetry): a paid call's access token, or either of
 * the developer's credentials. The token's job is checked against the path's by withApi (another job: 404).
 */
export async function requireJobReader(req: Request, scope: Scope): Promise<DeveloperPrincipal | JobTokenPrincipal> {
  const authorization = req.headers.get("authorization");
  if (!authorization?.startsWith("Bearer jt_")) return requireDeveloper(req, scope);
  const job = await jobOfAccessToken(authorization.slice("Bearer ".length).trim());
  if (!job) throw new DomainError("UNAUTHENTICATED", "The access token is not valid.");
  await consumeRateLimit(req, "account", job.accountId, limits.accountRequestsPerMinute);
  return { kind: "jobToken", ...job };
}

/** How a long-lived response (an event stream) re-checks the credential that opened it, without rate counting. */
export function streamCredential(req: Request, principal: DeveloperPrincipal | JobTokenPrincipal, scope: Scope) {
  // An access token is never revoked: it reads its job for as long as the job exists.
  if (principal.kind === "jobToken") return { code: "UNAUTHENTICATED" as const, stillValid: async () => true };
  if (principal.kind === "apiKey") {
    const secret = req.headers.get("x-api-key") ?? "";
    return {
      code: "INVALID_API_KEY" as const,
      stillValid: async () => Boolean((await authenticateApiKey(secret))?.scopes.includes(scope)),
    };
  }
  return {
    code: "UNAUTHENTICATED" as const,
    stillValid: async () => signedInOf(await readSession(req))?.accountId === principal.accountId,
  };
}

// Loaded on the first node request only, and once: every dynamic import() goes through the module loader.
let coordinator: Promise<typeof import("@/lib/network/coordinator")> | undefined;
const coordinatorModule = () => (coordinator ??= import("@/lib/network/coordinator"));

/**
 * Execution-node routes: `Authorization: Bearer <node token>` (the third credential context). A developer's
 * node, run by someone the deployment does not operate, is limited per node (429 over the rate).
 */
export async function requireNode(req: Request) {
  const header = req.headers.get("authorization");
  const token = header?.startsWith("Bearer ") ? header.slice(7).trim() : null;
  const { authenticateNode } = await coordinatorModule();
  const node = await authenticateNode(token);
  if (node.ownerAccountId !== null) {
    await consumeRateLimit(req, "node", node.id, limits.developerNodeRequestsPerMinute);
  }
  return node;
}

/** Sign-in routes (nonce, verify) are open to anyone: limited per client IP instead of per credential. */
export async function limitSignIn(req: Request): Promise<void> {
  await consumeRateLimit(req, "sign-in-ip", clientAddressOf(req), limits.signInRequestsPerMinutePerIp);
}
