import { noContent, withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";
import { drainNode } from "@/lib/network/coordinator";

export const POST = withApi(routes.drainNode, async (_req, { principal }) => {
  await drainNode(principal);
  return noContent();
});

export * from "@/lib/http/other-methods";
