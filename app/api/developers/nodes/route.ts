import { createDeveloperNode, listDeveloperNodes } from "@/lib/domain/developer-nodes";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.listNodes, async (_req, { principal, json }) =>
  json(await listDeveloperNodes(principal.accountId)),
);

export const POST = withApi(routes.createNode, async (_req, { principal, body, json }) =>
  json(await createDeveloperNode(principal.accountId, body), { headers: { "cache-control": "no-store" } }),
);

export * from "@/lib/http/other-methods";
