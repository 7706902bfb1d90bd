import { getDelivery } from "@/lib/domain/webhooks";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.getWebhookDelivery, async (_req, { principal, params, json }) =>
  json(await getDelivery(principal.accountId, params.endpointId, params.deliveryId)),
);

export * from "@/lib/http/other-methods";
