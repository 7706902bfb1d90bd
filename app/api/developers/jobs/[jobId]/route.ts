import { getJob } from "@/lib/engine/job-views";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.getJob, async (_req, { principal, params, json }) =>
  json(await getJob(principal.accountId, params.jobId)),
);

export * from "@/lib/http/other-methods";
