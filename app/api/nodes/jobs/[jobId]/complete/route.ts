import { noContent, withApi } from "@/lib/http/api";
import { readJson } from "@/lib/http/body";
import { requireNode } from "@/lib/http/guards";
import { completeExecution } from "@/lib/network/coordinator";
import { CompleteRequest } from "@/lib/network/node-protocol";

export const POST = withApi<{ jobId: string }>(async (req, { params }) => {
  const node = await requireNode(req);
  const { attempt, result, ...report } = await readJson(req, CompleteRequest);
  await completeExecution(node, params.jobId, attempt, result, report);
  return noContent();
});
