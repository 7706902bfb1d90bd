import { getJobReceipt } from "@/lib/engine/receipts";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.getJobReceipt, async (_req, { principal, params, json }) =>
  json(await getJobReceipt(principal.accountId, params.jobId)),
);

export * from "@/lib/http/other-methods";
