import { listDeliveries } from "@/lib/domain/webhooks";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.listWebhookDeliveries, async (_req, { principal, params, query, json }) =>
  json(await listDeliveries(principal.accountId, params.endpointId, query)),
);

export * from "@/lib/http/other-methods";
