import { listJobDeliveries } from "@/lib/domain/webhooks";
import { json, withApi } from "@/lib/http/api";
import { requireDeveloper } from "@/lib/http/guards";

export const dynamic = "force-dynamic";

export const GET = withApi<{ jobId: string }>(async (req, { params }) => {
  const { accountId } = await requireDeveloper(req, "webhooks:manage");
  return json(await listJobDeliveries(accountId, params.jobId));
});
