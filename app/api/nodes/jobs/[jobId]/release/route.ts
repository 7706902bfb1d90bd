import { noContent, withApi } from "@/lib/http/api";
import { readJson } from "@/lib/http/body";
import { requireNode } from "@/lib/http/guards";
import { releaseJob } from "@/lib/network/coordinator";
import { ReleaseRequest } from "@/lib/network/node-protocol";

export const POST = withApi<{ jobId: string }>(async (req, { params }) => {
  const node = await requireNode(req);
  const { attempt, reason } = await readJson(req, ReleaseRequest);
  await releaseJob(node, params.jobId, attempt, reason);
  return noContent();
});
