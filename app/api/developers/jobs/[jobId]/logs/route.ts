import { getJobLogs } from "@/lib/domain/jobs";
import { json, withApi } from "@/lib/http/api";
import { requireDeveloper } from "@/lib/http/guards";

export const dynamic = "force-dynamic";

export const GET = withApi<{ jobId: string }>(async (req, { params }) => {
  const { accountId } = await requireDeveloper(req, "jobs:read");
  return json(await getJobLogs(accountId, params.jobId));
});
