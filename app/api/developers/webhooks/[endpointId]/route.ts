import { deleteWebhookEndpoint, getWebhookEndpoint, updateWebhookEndpoint } from "@/lib/domain/webhooks";
import { noContent, withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.getWebhook, async (_req, { principal, params, json }) =>
  json(await getWebhookEndpoint(principal.accountId, params.endpointId)),
);

export const PATCH = withApi(routes.updateWebhook, async (_req, { principal, params, body, json }) =>
  json(await updateWebhookEndpoint(principal.accountId, params.endpointId, body)),
);

export const DELETE = withApi(routes.deleteWebhook, async (_req, { principal, params }) => {
  await deleteWebhookEndpoint(principal.accountId, params.endpointId);
  return noContent();
});

export * from "@/lib/http/other-methods";
