import { sendTestEvent } from "@/lib/domain/webhooks";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const POST = withApi(routes.sendWebhookTest, async (_req, { principal, params, json }) =>
  json(await sendTestEvent(principal.accountId, params.endpointId)),
);

export * from "@/lib/http/other-methods";
