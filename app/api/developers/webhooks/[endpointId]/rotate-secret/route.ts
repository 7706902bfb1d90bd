import { rotateWebhookSecret } from "@/lib/domain/webhooks";
import { json, withApi } from "@/lib/http/api";
import { requireDeveloper } from "@/lib/http/guards";

export const POST = withApi<{ endpointId: string }>(async (req, { params }) => {
  const { accountId } = await requireDeveloper(req, "webhooks:manage");
  return json(await rotateWebhookSecret(accountId, params.endpointId), { headers: { "cache-control": "no-store" } });
});
