import { getCreditBalance } from "@/lib/domain/credits";
import { json, withApi } from "@/lib/http/api";
import { requireDeveloper } from "@/lib/http/guards";

export const dynamic = "force-dynamic";

export const GET = withApi(async (req) => {
  const { accountId } = await requireDeveloper(req, "credits:read");
  return json(await getCreditBalance(accountId));
});
