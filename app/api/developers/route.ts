import { createProfile } from "@/lib/domain/accounts";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const POST = withApi(routes.createProfile, async (_req, { principal, body, json }) =>
  json(await createProfile(principal.accountId, body)),
);

export * from "@/lib/http/other-methods";
