import { createApiKey, listApiKeys } from "@/lib/domain/api-keys";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.listKeys, async (_req, { principal, json }) =>
  json(await listApiKeys(principal.accountId), { headers: { "cache-control": "no-store" } }),
);

export const POST = withApi(routes.createKey, async (_req, { principal, body, json }) =>
  json(await createApiKey(principal.accountId, body), { headers: { "cache-control": "no-store" } }),
);

export * from "@/lib/http/other-methods";
