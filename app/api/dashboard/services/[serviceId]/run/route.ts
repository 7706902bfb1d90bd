// Run from the dashboard's playground: wallet session + Origin, then the execution API through the
// developer's server-held dashboard key. 202 with the ExecutionJob, like execute.
import { bodyLimitOf } from "@/lib/domain/catalog";
import { json, withApi } from "@/lib/http/api";
import { readJson } from "@/lib/http/body";
import { requiredIdempotencyKey, runAsDashboard } from "@/lib/http/dashboard-run";
import { requireSession } from "@/lib/http/guards";
import { ExecuteRequest } from "@/lib/http/schemas";

export const POST = withApi<{ serviceId: string }>(async (req, { params, log }) => {
  const { accountId } = await requireSession(req);
  const idempotencyKey = requiredIdempotencyKey(req);
  const { input } = await readJson(req, ExecuteRequest, { maxBytes: bodyLimitOf(params.serviceId) });
  const job = await runAsDashboard({ accountId, serviceId: params.serviceId, input, idempotencyKey, log });
  return json(job, { status: 202, headers: { "cache-control": "no-store", location: `/jobs/${job.jobId}` } });
});
