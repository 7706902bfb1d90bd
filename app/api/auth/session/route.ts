import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.getSession, async (_req, { principal: { address, chainId }, json }) =>
  json({ address, chainId }, { headers: { "cache-control": "no-store" } }),
);

export * from "@/lib/http/other-methods";
