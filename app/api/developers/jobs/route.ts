import { bodyLimitOf } from "@/lib/domain/catalog";
import { limits } from "@/lib/limits";
import { listJobs } from "@/lib/domain/jobs";
import { json, withApi } from "@/lib/http/api";
import { parseOr400, queryOf, readJson } from "@/lib/http/body";
import { idempotencyKeyOf, submitAndRespond } from "@/lib/http/execute";
import { requireApiKey, requireDeveloper } from "@/lib/http/guards";
import { CreateJobRequest, ListJobsQuery } from "@/lib/http/schemas";

export const dynamic = "force-dynamic";

export const GET = withApi(async (req) => {
  const { accountId } = await requireDeveloper(req, "jobs:read");
  const filters = parseOr400(ListJobsQuery, queryOf(req), "The query");
  return json(await listJobs(accountId, filters));
});

export const POST = withApi(async (req) => {
  const principal = await requireApiKey(req, "services:execute");
  // The service's own limit applies, as on execute; it is known once the payload names the service.
  const { payload } = await readJson(req, CreateJobRequest, {
    readLimitBytes: limits.ocrBodyBytes,
    maxBytes: (body) => bodyLimitOf(body.payload.serviceId),
  });
  return submitAndRespond(principal, payload.serviceId, payload.input, idempotencyKeyOf(req));
});
