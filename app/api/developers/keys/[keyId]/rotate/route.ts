import { rotateApiKey } from "@/lib/domain/api-keys";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const POST = withApi(routes.rotateKey, async (_req, { principal, params, body, json }) =>
  json(await rotateApiKey(principal.accountId, params.keyId, body.gracePeriodSeconds), {
    headers: { "cache-control": "no-store" },
  }),
);

export * from "@/lib/http/other-methods";
