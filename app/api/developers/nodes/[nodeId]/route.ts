import { getDeveloperNode } from "@/lib/domain/developer-nodes";
import { revokeDeveloperNode } from "@/lib/engine/revoke-node";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.getNode, async (_req, { principal, params, json }) =>
  json(await getDeveloperNode(principal.accountId, params.nodeId)),
);

export const DELETE = withApi(routes.revokeNode, async (_req, { principal, params, json }) =>
  json(await revokeDeveloperNode(principal.accountId, params.nodeId)),
);

export * from "@/lib/http/other-methods";
