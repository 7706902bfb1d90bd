// Run from the dashboard's playground: wallet session + Origin, then the execution API through the
// developer's server-held dashboard key. 202 with the ExecutionJob, like execute.
import { withApi } from "@/lib/http/api";
import { requiredIdempotencyKey, runAsDashboard } from "@/lib/http/dashboard-run";
import { routes } from "@/lib/http/routes";

export const POST = withApi(routes.runFromDashboard, async (req, { principal, params, body, json, log }) => {
  const idempotencyKey = requiredIdempotencyKey(req);
  const job = await runAsDashboard({
    accountId: principal.accountId,
    serviceId: params.serviceId,
    input: body.input,
    placement: body.placement,
    idempotencyKey,
    log,
  });
  return json(job, { status: 202, headers: { "cache-control": "no-store", location: `/jobs/${job.jobId}` } });
});

export * from "@/lib/http/other-methods";
