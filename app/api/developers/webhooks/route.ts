import { createWebhookEndpoint, listWebhookEndpoints } from "@/lib/domain/webhooks";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.listWebhooks, async (_req, { principal, json }) =>
  json(await listWebhookEndpoints(principal.accountId)),
);

export const POST = withApi(routes.createWebhook, async (_req, { principal, body, json }) =>
  json(await createWebhookEndpoint(principal.accountId, body), { headers: { "cache-control": "no-store" } }),
);

export * from "@/lib/http/other-methods";
