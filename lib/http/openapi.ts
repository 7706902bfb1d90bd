// The OpenAPI 3.1 document, generated from the same zod schemas that validate requests.
import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import * as node from "@/lib/network/node-protocol";
import * as s from "./schemas";

type Method = RouteConfig["method"];
type Credential = "session" | "apiKey" | "either" | "node" | "none";

const security: Record<Credential, RouteConfig["security"]> = {
  session: [{ walletSession: [] }],
  apiKey: [{ apiKey: [] }],
  either: [{ apiKey: [] }, { walletSession: [] }],
  node: [{ nodeToken: [] }],
  none: [],
};

const jsonContent = (schema: z.ZodType) => ({ content: { "application/json": { schema } } });
const errorResponses = (codes: number[]) =>
  Object.fromEntries(codes.map((code) => [String(code), { description: `Error (${code})`, ...jsonContent(s.ErrorEnvelope) }]));

interface PathSpec {
  method: Method;
  path: string;
  summary: string;
  tags: string[];
  credential: Credential;
  scope?: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  headers?: z.ZodObject;
  body?: z.ZodType;
  ok: { status: number; schema?: z.ZodType; description?: string; contentType?: string };
  errors: number[];
}

const jobIdParam = z.object({ jobId: z.string().meta({ description: "Job id (UUID)" }) });
const keyIdParam = z.object({ keyId: z.string() });
const idempotencyHeaders = z.object({ "Idempotency-Key": s.IdempotencyKeyHeader.optional() });

const paths: PathSpec[] = [
  { method: "get", path: "/api/auth/nonce", summary: "Issue a single-use SIWE nonce bound to the session cookie", tags: ["Auth"], credential: "none", ok: { status: 200, schema: s.NonceResponse }, errors: [] },
  { method: "post", path: "/api/auth/verify", summary: "Verify a signed EIP-4361 message and start a wallet session", tags: ["Auth"], credential: "none", body: s.VerifyRequest, ok: { status: 200, schema: s.SessionResponse }, errors: [400, 401, 403, 415] },
  { method: "get", path: "/api/auth/session", summary: "The current wallet session", tags: ["Auth"], credential: "session", ok: { status: 200, schema: s.SessionResponse }, errors: [401] },
  { method: "post", path: "/api/auth/logout", summary: "End the wallet session (revoked server-side)", tags: ["Auth"], credential: "session", ok: { status: 204, description: "Signed out" }, errors: [403] },
  { method: "post", path: "/api/auth/logout-everywhere", summary: "Sign out everywhere: revoke every session of this account", tags: ["Auth"], credential: "session", ok: { status: 204, description: "Every session revoked" }, errors: [401, 403] },
  { method: "post", path: "/api/developers", summary: "Create the developer profile", tags: ["Developers"], credential: "session", body: s.CreateProfileRequest, ok: { status: 201, schema: s.Profile }, errors: [400, 401, 403, 409, 415] },
  { method: "get", path: "/api/developers/me", summary: "Read the developer profile", tags: ["Developers"], credential: "session", ok: { status: 200, schema: s.Profile }, errors: [401, 404] },
  { method: "patch", path: "/api/developers/me", summary: "Update the developer profile", tags: ["Developers"], credential: "session", body: s.UpdateProfileRequest, ok: { status: 200, schema: s.Profile }, errors: [400, 401, 403, 404, 415] },
  { method: "post", path: "/api/developers/keys", summary: "Create an API key (the secret is returned once)", tags: ["API keys"], credential: "session", body: s.CreateKeyRequest, ok: { status: 201, schema: s.ApiKeyWithSecret }, errors: [400, 401, 403, 404, 415] },
  { method: "get", path: "/api/developers/keys", summary: "List API keys, newest first", tags: ["API keys"], credential: "session", ok: { status: 200, schema: z.array(s.ApiKey) }, errors: [401, 404] },
  { method: "delete", path: "/api/developers/keys/{keyId}", summary: "Revoke an API key (idempotent)", tags: ["API keys"], credential: "session", params: keyIdParam, ok: { status: 200, schema: s.ApiKey }, errors: [401, 403, 404] },
  { method: "post", path: "/api/developers/keys/{keyId}/rotate", summary: "Rotate an API key's secret, optionally with a grace period", tags: ["API keys"], credential: "session", params: keyIdParam, body: s.RotateKeyRequest, ok: { status: 200, schema: s.ApiKeyWithSecret }, errors: [400, 401, 403, 404, 409] },
  { method: "get", path: "/api/marketplace/services", summary: "List the AI Executions (public)", tags: ["Services"], credential: "none", ok: { status: 200, schema: z.array(s.ExecutionService) }, errors: [] },
  { method: "post", path: "/api/marketplace/services/{id}/execute", summary: "Submit a job for a service (asynchronous)", tags: ["Jobs"], credential: "apiKey", scope: "services:execute", params: z.object({ id: z.string() }), headers: idempotencyHeaders, body: s.ExecuteRequest, ok: { status: 202, schema: s.ExecutionJob }, errors: [400, 401, 402, 403, 404, 409, 413, 415, 422, 429] },
  { method: "post", path: "/api/developers/jobs", summary: "Create a developer_job (same as execute of payload.serviceId)", tags: ["Jobs"], credential: "apiKey", scope: "services:execute", headers: idempotencyHeaders, body: s.CreateJobRequest, ok: { status: 202, schema: s.ExecutionJob }, errors: [400, 401, 402, 403, 404, 409, 413, 415, 422, 429] },
  { method: "get", path: "/api/developers/jobs", summary: "List jobs, newest first", tags: ["Jobs"], credential: "either", scope: "jobs:read", query: s.ListJobsQuery, ok: { status: 200, schema: s.JobList }, errors: [400, 401, 403, 429] },
  { method: "get", path: "/api/developers/jobs/{jobId}", summary: "Read one job", tags: ["Jobs"], credential: "either", scope: "jobs:read", params: jobIdParam, ok: { status: 200, schema: s.ExecutionJob }, errors: [401, 403, 404] },
  { method: "get", path: "/api/developers/jobs/{jobId}/logs", summary: "The job's log lines, oldest first", tags: ["Jobs"], credential: "either", scope: "jobs:read", params: jobIdParam, ok: { status: 200, schema: z.array(s.ExecutionLog) }, errors: [401, 403, 404] },
  { method: "get", path: "/api/developers/jobs/{jobId}/telemetry", summary: "The job's telemetry events by sequence", tags: ["Jobs"], credential: "either", scope: "telemetry:read", params: jobIdParam, query: s.pageQuery, ok: { status: 200, schema: s.TelemetryPage }, errors: [400, 401, 403, 404] },
  { method: "get", path: "/api/developers/jobs/{jobId}/events", summary: "Server-Sent Events: `telemetry` (id = sequence) and `status` messages until the final state; resumes from Last-Event-ID", tags: ["Jobs"], credential: "either", scope: "telemetry:read", params: jobIdParam, headers: z.object({ "Last-Event-ID": z.string().optional() }), ok: { status: 200, description: "text/event-stream", contentType: "text/event-stream" }, errors: [400, 401, 403, 404] },
  { method: "post", path: "/api/developers/jobs/{jobId}/cancel", summary: "Cancel a non-final job (→ failed, CANCELLED, refunded)", tags: ["Jobs"], credential: "either", scope: "services:execute", params: jobIdParam, ok: { status: 200, schema: s.ExecutionJob }, errors: [401, 403, 404, 409] },
  { method: "get", path: "/api/credits/balance", summary: "Credit balance", tags: ["Credits"], credential: "either", scope: "credits:read", ok: { status: 200, schema: s.CreditBalance }, errors: [401, 403] },
  { method: "get", path: "/api/credits/history", summary: "Credit history, newest first", tags: ["Credits"], credential: "either", scope: "credits:read", query: s.pageQuery, ok: { status: 200, schema: s.CreditHistory }, errors: [400, 401, 403] },
  { method: "get", path: "/api/developers/metrics", summary: "UsageSummary for a period (default: last 30 days)", tags: ["Credits"], credential: "either", scope: "credits:read", query: s.MetricsQuery, ok: { status: 200, schema: s.UsageSummary }, errors: [400, 401, 403] },
  { method: "get", path: "/api/health", summary: "Health: database and live node count", tags: ["Operations"], credential: "none", ok: { status: 200, schema: s.Health }, errors: [503] },
  { method: "get", path: "/api/health/live", summary: "Liveness: the process answers (no database round trip)", tags: ["Operations"], credential: "none", ok: { status: 200, description: "Alive" }, errors: [] },
  { method: "get", path: "/api/openapi.json", summary: "This document", tags: ["Operations"], credential: "none", ok: { status: 200, description: "OpenAPI 3.1 document" }, errors: [] },
  { method: "post", path: "/api/nodes/register", summary: "Node: register (or re-register) and declare services and concurrency", tags: ["Nodes"], credential: "node", body: node.RegisterNodeRequest, ok: { status: 200, schema: node.NodeSession }, errors: [400, 401] },
  { method: "post", path: "/api/nodes/heartbeat", summary: "Node: heartbeat; extends leases; returns jobs to stop", tags: ["Nodes"], credential: "node", body: node.HeartbeatRequest, ok: { status: 200, schema: node.HeartbeatResponse }, errors: [400, 401] },
  { method: "post", path: "/api/nodes/claim", summary: "Node: claim up to `max` jobs, long-polling up to `waitMs`", tags: ["Nodes"], credential: "node", body: node.ClaimRequest, ok: { status: 200, schema: node.ClaimResponse }, errors: [400, 401] },
  { method: "post", path: "/api/nodes/drain", summary: "Node: stop receiving work (graceful shutdown)", tags: ["Nodes"], credential: "node", ok: { status: 204, description: "Draining" }, errors: [401] },
  { method: "post", path: "/api/nodes/jobs/{jobId}/start", summary: "Node: execution started", tags: ["Nodes"], credential: "node", params: jobIdParam, body: node.StartRequest, ok: { status: 204, description: "Recorded" }, errors: [400, 401, 404, 409] },
  { method: "post", path: "/api/nodes/jobs/{jobId}/progress", summary: "Node: progress, provider requests and log lines", tags: ["Nodes"], credential: "node", params: jobIdParam, body: node.ProgressRequest, ok: { status: 204, description: "Recorded" }, errors: [400, 401, 404, 409] },
  { method: "post", path: "/api/nodes/jobs/{jobId}/complete", summary: "Node: result", tags: ["Nodes"], credential: "node", params: jobIdParam, body: node.CompleteRequest, ok: { status: 204, description: "Recorded" }, errors: [400, 401, 404, 409] },
  { method: "post", path: "/api/nodes/jobs/{jobId}/fail", summary: "Node: attempt failed (retryable or not)", tags: ["Nodes"], credential: "node", params: jobIdParam, body: node.FailRequest, ok: { status: 204, description: "Recorded" }, errors: [400, 401, 404, 409] },
  { method: "post", path: "/api/nodes/jobs/{jobId}/release", summary: "Node: give a job back (routed again as a new attempt)", tags: ["Nodes"], credential: "node", params: jobIdParam, body: node.ReleaseRequest, ok: { status: 204, description: "Recorded" }, errors: [400, 401, 404, 409] },
];

/** Every API route's method and path template (`{param}`), for the 405 answer in proxy.ts. */
export const declaredRoutes: { method: string; path: string }[] = paths.map((p) => ({ method: p.method.toUpperCase(), path: p.path }));

function buildDocument() {
  const registry = new OpenAPIRegistry();
  registry.registerComponent("securitySchemes", "apiKey", { type: "apiKey", in: "header", name: "x-api-key" });
  registry.registerComponent("securitySchemes", "walletSession", { type: "apiKey", in: "cookie", name: "en_session" });
  registry.registerComponent("securitySchemes", "nodeToken", { type: "http", scheme: "bearer" });
  for (const p of paths) {
    registry.registerPath({
      method: p.method,
      path: p.path,
      summary: p.summary,
      description: p.scope ? `Requires scope \`${p.scope}\` when called with an API key.` : undefined,
      tags: p.tags,
      security: security[p.credential],
      request: {
        ...(p.params ? { params: p.params } : {}),
        ...(p.query ? { query: p.query } : {}),
        ...(p.headers ? { headers: p.headers } : {}),
        ...(p.body ? { body: { required: true, ...jsonContent(p.body) } } : {}),
      },
      responses: {
        [String(p.ok.status)]: {
          description: p.ok.description ?? "OK",
          ...(p.ok.schema ? jsonContent(p.ok.schema) : p.ok.contentType ? { content: { [p.ok.contentType]: { schema: { type: "string" } } } } : {}),
        },
        ...errorResponses([...p.errors, 500]),
      },
    });
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "Execution Network API",
      version: "0.1.0",
      description:
        "Submit AI workloads asynchronously, follow them through status, logs and telemetry, pay in credits. Errors use the envelope {error:{code,message,requestId,details}}.",
    },
  });
}

let cached: ReturnType<typeof buildDocument> | undefined;
export const openApiDocument = () => (cached ??= buildDocument());
