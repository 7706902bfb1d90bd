import { listCreditHistory } from "@/lib/domain/credits";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.listCreditHistory, async (_req, { principal, query, json }) =>
  json(await listCreditHistory(principal.accountId, query)),
);

export * from "@/lib/http/other-methods";
