import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";
import { claimJobs } from "@/lib/engine/claims";

export const POST = withApi(routes.claimJobs, async (req, { principal, body: { max, waitMs, start }, json }) =>
  json({ jobs: await claimJobs(principal, max, waitMs, req.signal, { start }) }),
);

export * from "@/lib/http/other-methods";
