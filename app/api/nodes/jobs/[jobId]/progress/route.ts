import { noContent, withApi } from "@/lib/http/api";
import { readJson } from "@/lib/http/body";
import { requireNode } from "@/lib/http/guards";
import { reportProgress } from "@/lib/network/coordinator";
import { ProgressRequest } from "@/lib/network/node-protocol";

export const POST = withApi<{ jobId: string }>(async (req, { params }) => {
  const node = await requireNode(req);
  const { attempt, ...report } = await readJson(req, ProgressRequest);
  await reportProgress(node, params.jobId, attempt, report);
  return noContent();
});
