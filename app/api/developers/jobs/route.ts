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
  const { payload } = await readJson(req, CreateJobRequest, { maxBytes: limits.ocrBodyBytes });
  return submitAndRespond(principal, payload.serviceId, payload.input, idempotencyKeyOf(req));
});
