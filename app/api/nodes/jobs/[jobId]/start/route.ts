import { noContent, withApi } from "@/lib/http/api";
import { readJson } from "@/lib/http/body";
import { requireNode } from "@/lib/http/guards";
import { startExecution } from "@/lib/network/coordinator";
import { StartRequest } from "@/lib/network/node-protocol";

export const POST = withApi<{ jobId: string }>(async (req, { params }) => {
  const node = await requireNode(req);
  const { attempt } = await readJson(req, StartRequest);
  await startExecution(node, params.jobId, attempt);
  return noContent();
});
