import { json, withApi } from "@/lib/http/api";
import { readJson } from "@/lib/http/body";
import { requireNode } from "@/lib/http/guards";
import { claimJobs } from "@/lib/network/coordinator";
import { ClaimRequest } from "@/lib/network/node-protocol";

export const dynamic = "force-dynamic";

export const POST = withApi(async (req) => {
  const node = await requireNode(req);
  const { max, waitMs } = await readJson(req, ClaimRequest);
  return json({ jobs: await claimJobs(node, max, waitMs, req.signal) });
});
