import { getJobLogs } from "@/lib/engine/job-views";
import { withApi } from "@/lib/http/api";
import { cursorPageHeaders } from "@/lib/http/cursor-page";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.getJobLogs, async (req, { principal, params, query, json }) => {
  const { lines, hasMore } = await getJobLogs(principal.accountId, params.jobId, query);
  const next = hasMore ? { after: lines.at(-1)?.sequence ?? query.after, limit: query.limit } : null;
  return json(lines, { headers: cursorPageHeaders(req, next) });
});

export * from "@/lib/http/other-methods";
