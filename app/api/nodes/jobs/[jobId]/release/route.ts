import { noContent, withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";
import { releaseJob } from "@/lib/engine/node-reports";

export const POST = withApi(routes.releaseJob, async (_req, { principal, params, body: { attempt, reason } }) => {
  await releaseJob(principal, params.jobId, attempt, reason);
  return noContent();
});

export * from "@/lib/http/other-methods";
