import { noContent, withApi } from "@/lib/http/api";
import { readJson } from "@/lib/http/body";
import { requireNode } from "@/lib/http/guards";
import { failExecution } from "@/lib/network/coordinator";
import { FailRequest } from "@/lib/network/node-protocol";

export const POST = withApi<{ jobId: string }>(async (req, { params }) => {
  const node = await requireNode(req);
  const { attempt, ...failure } = await readJson(req, FailRequest);
  await failExecution(node, params.jobId, attempt, failure);
  return noContent();
});
