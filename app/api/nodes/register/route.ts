import { json, withApi } from "@/lib/http/api";
import { readJson } from "@/lib/http/body";
import { requireNode } from "@/lib/http/guards";
import { registerNode } from "@/lib/network/coordinator";
import { RegisterNodeRequest } from "@/lib/network/node-protocol";

export const POST = withApi(async (req) => {
  const node = await requireNode(req);
  return json(await registerNode(node, await readJson(req, RegisterNodeRequest)));
});
