import { noContent, withApi } from "@/lib/http/api";
import { requireNode } from "@/lib/http/guards";
import { drainNode } from "@/lib/network/coordinator";

export const POST = withApi(async (req) => {
  await drainNode(await requireNode(req));
  return noContent();
});
