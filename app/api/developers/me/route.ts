import { getProfile, updateProfile } from "@/lib/domain/accounts";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.getProfile, async (_req, { principal, json }) =>
  json(await getProfile(principal.accountId)),
);

export const PATCH = withApi(routes.updateProfile, async (_req, { principal, body, json }) =>
  json(await updateProfile(principal.accountId, body)),
);

export * from "@/lib/http/other-methods";
