import { listJobs } from "@/lib/engine/job-views";
import { withApi } from "@/lib/http/api";
import { idempotencyKeyOf, submitAndRespond } from "@/lib/http/execute";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.listJobs, async (_req, { principal, query, json }) =>
  json(await listJobs(principal.accountId, query)),
);

export const POST = withApi(routes.createJob, async (req, { principal, body: { payload }, json }) =>
  submitAndRespond(json, principal, payload.serviceId, payload.input, idempotencyKeyOf(req), payload.placement),
);

export * from "@/lib/http/other-methods";
