import { rotateWebhookSecret } from "@/lib/domain/webhooks";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const POST = withApi(routes.rotateWebhookSecret, async (_req, { principal, params, json }) =>
  json(await rotateWebhookSecret(principal.accountId, params.endpointId), { headers: { "cache-control": "no-store" } }),
);

export * from "@/lib/http/other-methods";
