import { redeliver } from "@/lib/domain/webhooks";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const POST = withApi(routes.redeliverWebhook, async (_req, { principal, params, json }) =>
  json(await redeliver(principal.accountId, params.endpointId, params.deliveryId)),
);

export * from "@/lib/http/other-methods";
