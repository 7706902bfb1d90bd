// The Nodes page's live data: the developer's own nodes with their last day, then the network's nodes.
import { nodesOverview } from "@/lib/domain/developer-nodes";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.nodesOverview, async (_req, { principal, json }) =>
  json(await nodesOverview(principal.accountId)),
);

export * from "@/lib/http/other-methods";
