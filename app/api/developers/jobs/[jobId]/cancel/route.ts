import { cancelJob } from "@/lib/engine/cancel-job";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const POST = withApi(routes.cancelJob, async (_req, { principal, params, json }) =>
  json(await cancelJob(principal.accountId, params.jobId)),
);

export * from "@/lib/http/other-methods";
