import { redeliver } from "@/lib/domain/webhooks";
import { json, withApi } from "@/lib/http/api";
import { requireDeveloper } from "@/lib/http/guards";

export const POST = withApi<{ endpointId: string; deliveryId: string }>(async (req, { params }) => {
  const { accountId } = await requireDeveloper(req, "webhooks:manage");
  return json(await redeliver(accountId, params.endpointId, params.deliveryId), { status: 202 });
});
