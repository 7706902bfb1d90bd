import { noContent, withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";
import { reportProgress } from "@/lib/engine/node-reports";

export const POST = withApi(
  routes.reportProgress,
  async (_req, { principal, params, body: { attempt, ...report } }) => {
    await reportProgress(principal, params.jobId, attempt, report);
    return noContent();
  },
);

export * from "@/lib/http/other-methods";
