import { cancelJob } from "@/lib/domain/jobs";
import { json, withApi } from "@/lib/http/api";
import { requireDeveloper } from "@/lib/http/guards";

// Cancelling is an execution action: an API key needs services:execute; the dashboard's session may too.
export const POST = withApi<{ jobId: string }>(async (req, { params }) => {
  const { accountId } = await requireDeveloper(req, "services:execute");
  return json(await cancelJob(accountId, params.jobId));
});
