import { rotateDeveloperNodeToken } from "@/lib/domain/developer-nodes";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const POST = withApi(routes.rotateNodeToken, async (_req, { principal, params, json }) =>
  json(await rotateDeveloperNodeToken(principal.accountId, params.nodeId), {
    headers: { "cache-control": "no-store" },
  }),
);

export * from "@/lib/http/other-methods";
