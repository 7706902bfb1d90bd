import { noContent, withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";
import { stopNode } from "@/lib/network/coordinator";

export const POST = withApi(routes.stopNode, async (_req, { principal }) => {
  await stopNode(principal);
  return noContent();
});

export * from "@/lib/http/other-methods";
