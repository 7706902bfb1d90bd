// The OpenAPI 3.1 document, generated from the route declarations (./routes.ts) and their zod schemas:
// the same declarations withApi enforces.
import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import * as s from "@/lib/contract/schemas";
import { routes, type Credential, type RouteSpec } from "./routes";

const security: Record<Credential, RouteConfig["security"]> = {
  session: [{ walletSession: [] }],
  apiKey: [{ apiKey: [] }],
  either: [{ apiKey: [] }, { walletSession: [] }],
  node: [{ nodeToken: [] }],
  origin: [],
  none: [],
};

const jsonContent = (schema: z.ZodType) => ({ content: { "application/json": { schema } } });
const errorDescriptions: Record<number, string> = {
  402: "INSUFFICIENT_CREDITS, or KEY_CREDIT_LIMIT: the API key's credit limit is spent (details: KeyCreditLimitDetails)",
};
const errorResponses = (codes: number[]) =>
  Object.fromEntries(
    codes.map((code) => [
      String(code),
      { description: errorDescriptions[code] ?? `Error (${code})`, ...jsonContent(s.ErrorEnvelope) },
    ]),
  );

function buildDocument() {
  const registry = new OpenAPIRegistry();
  registry.registerComponent("securitySchemes", "apiKey", { type: "apiKey", in: "header", name: "x-api-key" });
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
          ...(p.response.headers ? { headers: p.response.headers } : {}),
          ...(p.response.schema
            ? jsonContent(p.response.schema)
            : p.response.contentType
              ? { content: { [p.response.contentType]: { schema: { type: "string" } } } }
              : {}),
        },
        ...errorResponses([...p.errors, 500]),
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
