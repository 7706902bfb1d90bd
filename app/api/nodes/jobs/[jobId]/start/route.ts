import { noContent, withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";
import { startExecution } from "@/lib/engine/node-reports";

export const POST = withApi(routes.startExecution, async (_req, { principal, params, body: { attempt } }) => {
  await startExecution(principal, params.jobId, attempt);
  return noContent();
});

export * from "@/lib/http/other-methods";
