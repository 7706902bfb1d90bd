import { getJob } from "@/lib/domain/jobs";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.getJob, async (_req, { principal, params, json }) =>
  json(await getJob(principal.accountId, params.jobId)),
);
