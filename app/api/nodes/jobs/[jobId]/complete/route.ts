import { noContent, withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";
import { completeExecution } from "@/lib/engine/node-reports";

export const POST = withApi(
  routes.completeExecution,
  async (_req, { principal, params, body: { attempt, result, ...report } }) => {
    await completeExecution(principal, params.jobId, attempt, result, report);
    return noContent();
  },
);

export * from "@/lib/http/other-methods";
