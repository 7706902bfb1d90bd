import { listCreditHistory } from "@/lib/domain/credits";
import { json, withApi } from "@/lib/http/api";
import { parseOr400, queryOf } from "@/lib/http/body";
import { requireDeveloper } from "@/lib/http/guards";
import { pageQuery } from "@/lib/http/schemas";

export const dynamic = "force-dynamic";

export const GET = withApi(async (req) => {
  const { accountId } = await requireDeveloper(req, "credits:read");
  const page = parseOr400(pageQuery, queryOf(req), "The query");
  return json(await listCreditHistory(accountId, page));
});
