// The OpenAPI 3.1 document, generated from the route declarations (./routes.ts) and their zod schemas:
// the same declarations withApi enforces.
import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import * as s from "@/lib/contract/schemas";
import { isRateLimited, routes, type Credential, type RouteSpec } from "./routes";

const security: Record<Credential, RouteConfig["security"]> = {
  session: [{ walletSession: [] }],
  apiKey: [{ apiKey: [] }],
  // No credential at all is the x402 payment (CONTRACT §15): the empty requirement.
  apiKeyOrPayment: [{ apiKey: [] }, {}],
  either: [{ apiKey: [] }, { walletSession: [] }],
  jobReader: [{ apiKey: [] }, { walletSession: [] }, { jobToken: [] }],
  node: [{ nodeToken: [] }],
  origin: [],
  none: [],
};

const jsonContent = (schema: z.ZodType) => ({ content: { "application/json": { schema } } });
const errorDescriptions: Record<number, string> = {
  402: "INSUFFICIENT_CREDITS, or KEY_CREDIT_LIMIT: the API key's credit limit is spent (details: KeyCreditLimitDetails)",
};

// What rate-limit.ts sends: the RateLimit-* headers on every answer a limit counted, Retry-After on a 429.
// (Not "required": a limit configured to 0 counts nothing and sends none.)
const rateLimitHeaders = z.object({
  "RateLimit-Limit": z
    .number()
    .int()
    .optional()
    .meta({ description: "Requests a minute the tightest limit that applied allows" }),
  "RateLimit-Remaining": z.number().int().optional().meta({ description: "Requests left in the current window" }),
  "RateLimit-Reset": z.number().int().optional().meta({ description: "Seconds until the window resets" }),
});
const rateLimitedResponse = {
  description:
    "RATE_LIMITED: over the API key's, the account's, a developer's node's or (sign-in) the client address's requests per minute, or (event streams) the account's open streams",
  headers: z.object({
    "Retry-After": z.number().int().meta({ description: "Seconds to wait before trying again" }),
    ...rateLimitHeaders.shape,
  }),
  ...jsonContent(s.ErrorEnvelope),
};

function errorResponses(route: RouteSpec) {
  const codes = new Set([...route.errors, 500]);
  if (isRateLimited(route)) codes.add(429);
  return Object.fromEntries(
    [...codes]
      .sort((a, b) => a - b)
      .map((code) => [
        String(code),
        code === 429
          ? rateLimitedResponse
          : {
              description: route.errorNotes?.[code] ?? errorDescriptions[code] ?? `Error (${code})`,
              ...jsonContent(s.ErrorEnvelope),
            },
      ]),
  );
}

function successHeaders(route: RouteSpec) {
  const headers = { ...route.response.headers?.shape, ...(isRateLimited(route) ? rateLimitHeaders.shape : {}) };
  return Object.keys(headers).length > 0 ? { headers: z.object(headers) } : {};
}

function buildDocument() {
  const registry = new OpenAPIRegistry();
  registry.registerComponent("securitySchemes", "apiKey", { type: "apiKey", in: "header", name: "x-api-key" });
  registry.registerComponent("securitySchemes", "jobToken", {
    type: "http",
    scheme: "bearer",
    description:
      "A paid call's access token (`jt_…`, CONTRACT §15): reads that one job, its events, logs and telemetry.",
  });
  registry.registerComponent("securitySchemes", "walletSession", { type: "apiKey", in: "cookie", name: "en_session" });
  registry.registerComponent("securitySchemes", "nodeToken", { type: "http", scheme: "bearer" });
  for (const p of Object.values(routes) as RouteSpec[]) {
    registry.registerPath({
      method: p.method,
      path: p.path,
      summary: p.summary,
      description:
        [p.description, p.scope ? `Requires scope \`${p.scope}\` when called with an API key.` : undefined]
          .filter(Boolean)
          .join("\n\n") || undefined,
      tags: p.tags,
      security: security[p.credential],
      request: {
        ...(p.params ? { params: p.params } : {}),
        ...(p.query ? { query: p.query } : {}),
        ...(p.headers ? { headers: p.headers } : {}),
        ...(p.body ? { body: { required: true, ...jsonContent(p.body.schema) } } : {}),
      },
      responses: {
        [String(p.response.status)]: {
          description: p.response.description ?? "OK",
          ...successHeaders(p),
          ...(p.response.schema
            ? { content: { [p.response.contentType ?? "application/json"]: { schema: p.response.schema } } }
            : p.response.contentType
              ? { content: { [p.response.contentType]: { schema: { type: "string" } } } }
              : {}),
        },
        ...errorResponses(p),
      },
    });
  }
  // What a receiver gets (OpenAPI 3.1 `webhooks`): a signed POST of a WebhookEvent.
  registry.registerWebhook({
    method: "post",
    path: "webhookEvent",
    summary: "A webhook delivery to a registered endpoint",
    description:
      'Headers (Standard Webhooks): webhook-id (the event id, the same on every retry), webhook-timestamp (Unix seconds), webhook-signature (`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` per live secret, space-separated). Answer 2xx within 10 s; anything else is retried.',
    tags: ["Webhooks"],
    request: {
      headers: z.object({ "webhook-id": z.string(), "webhook-timestamp": z.string(), "webhook-signature": z.string() }),
      body: { required: true, ...jsonContent(s.WebhookEvent) },
    },
    responses: { "200": { description: "Any 2xx acknowledges the event" } },
  });
  // KeyCreditLimitDetails is named by the 402 responses' description; no route returns it as a body of its own.
  return new OpenApiGeneratorV31([
    ...registry.definitions,
    { type: "schema", schema: s.CreditLimitDetails },
  ]).generateDocument({
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
