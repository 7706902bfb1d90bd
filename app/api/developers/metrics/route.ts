import { getUsageSummary } from "@/lib/domain/usage";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.getUsageSummary, async (_req, { principal, query, json }) =>
  json(await getUsageSummary(principal.accountId, query)),
);

export * from "@/lib/http/other-methods";
