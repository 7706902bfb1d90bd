import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";
import { registerNode } from "@/lib/network/coordinator";

export const POST = withApi(routes.registerNode, async (_req, { principal, body, json }) =>
  json(await registerNode(principal, body)),
);

export * from "@/lib/http/other-methods";
