import { listDeliveries } from "@/lib/domain/webhooks";
import { json, withApi } from "@/lib/http/api";
import { parseOr400, queryOf } from "@/lib/http/body";
import { requireDeveloper } from "@/lib/http/guards";
import { pageQuery } from "@/lib/http/schemas";

export const dynamic = "force-dynamic";

export const GET = withApi<{ endpointId: string }>(async (req, { params }) => {
  const { accountId } = await requireDeveloper(req, "webhooks:manage");
  const page = parseOr400(pageQuery, queryOf(req), "The query");
  return json(await listDeliveries(accountId, params.endpointId, page));
});
