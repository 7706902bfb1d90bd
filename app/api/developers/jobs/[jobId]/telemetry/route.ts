import { getJobTelemetry } from "@/lib/engine/job-views";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.getJobTelemetry, async (_req, { principal, params, query, json }) =>
  json(await getJobTelemetry(principal.accountId, params.jobId, query)),
);

export * from "@/lib/http/other-methods";
