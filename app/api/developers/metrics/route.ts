import { getUsageSummary } from "@/lib/domain/usage";
import { json, withApi } from "@/lib/http/api";
import { parseOr400, queryOf } from "@/lib/http/body";
import { requireDeveloper } from "@/lib/http/guards";
import { MetricsQuery } from "@/lib/http/schemas";

export const dynamic = "force-dynamic";

export const GET = withApi(async (req) => {
  const { accountId } = await requireDeveloper(req, "credits:read");
  return json(await getUsageSummary(accountId, parseOr400(MetricsQuery, queryOf(req), "The query")));
});
