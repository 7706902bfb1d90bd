import { getJobLogs } from "@/lib/engine/job-views";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.getJobLogs, async (_req, { principal, params, json }) =>
  json(await getJobLogs(principal.accountId, params.jobId)),
);

export * from "@/lib/http/other-methods";
