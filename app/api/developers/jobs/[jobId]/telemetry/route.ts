import { getJobTelemetry } from "@/lib/domain/jobs";
import { json, withApi } from "@/lib/http/api";
import { parseOr400, queryOf } from "@/lib/http/body";
import { requireDeveloper } from "@/lib/http/guards";
import { pageQuery } from "@/lib/http/schemas";

export const dynamic = "force-dynamic";

export const GET = withApi<{ jobId: string }>(async (req, { params }) => {
  const { accountId } = await requireDeveloper(req, "telemetry:read");
  const page = parseOr400(pageQuery, queryOf(req), "The query");
  return json(await getJobTelemetry(accountId, params.jobId, page));
});
