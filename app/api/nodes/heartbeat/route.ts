import { json, withApi } from "@/lib/http/api";
import { readJson } from "@/lib/http/body";
import { requireNode } from "@/lib/http/guards";
import { heartbeat } from "@/lib/network/coordinator";
import { HeartbeatRequest } from "@/lib/network/node-protocol";

export const POST = withApi(async (req) => {
  const node = await requireNode(req);
  const { activeJobIds } = await readJson(req, HeartbeatRequest);
  return json(await heartbeat(node, activeJobIds));
});
