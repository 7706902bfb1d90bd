import { getCreditBalance } from "@/lib/domain/credits";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.getCreditBalance, async (_req, { principal, json }) =>
  json(await getCreditBalance(principal.accountId)),
);

export * from "@/lib/http/other-methods";
