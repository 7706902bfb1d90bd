import { revokeApiKey, updateApiKey } from "@/lib/domain/api-keys";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const PATCH = withApi(routes.updateKey, async (_req, { principal, params, body, json }) =>
  json(await updateApiKey(principal.accountId, params.keyId, body)),
);

export const DELETE = withApi(routes.revokeKey, async (_req, { principal, params, json }) =>
  json(await revokeApiKey(principal.accountId, params.keyId)),
);

export * from "@/lib/http/other-methods";
