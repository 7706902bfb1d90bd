import { getTopUp } from "@/lib/domain/top-ups";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.getTopUp, async (_req, { principal, params, json }) =>
  json(await getTopUp(principal.accountId, params.topUpId), { headers: { "cache-control": "no-store" } }),
);

export * from "@/lib/http/other-methods";
