import { listJobDeliveries } from "@/lib/domain/webhooks";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.listJobWebhookDeliveries, async (_req, { principal, params, json }) =>
  json(await listJobDeliveries(principal.accountId, params.jobId)),
);

export * from "@/lib/http/other-methods";
