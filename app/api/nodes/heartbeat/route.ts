import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";
import { heartbeat } from "@/lib/network/coordinator";

export const POST = withApi(routes.nodeHeartbeat, async (_req, { principal, body, json }) =>
  json(await heartbeat(principal, body.activeJobIds)),
);

export * from "@/lib/http/other-methods";
