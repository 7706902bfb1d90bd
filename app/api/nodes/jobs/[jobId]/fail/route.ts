import { noContent, withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";
import { failExecution } from "@/lib/engine/node-reports";

export const POST = withApi(
  routes.failExecution,
  async (_req, { principal, params, body: { attempt, ...failure } }) => {
    await failExecution(principal, params.jobId, attempt, failure);
    return noContent();
  },
);

export * from "@/lib/http/other-methods";
