import { bodyLimitOf } from "@/lib/domain/catalog";
import { withApi } from "@/lib/http/api";
import { readJson } from "@/lib/http/body";
import { idempotencyKeyOf, submitAndRespond } from "@/lib/http/execute";
import { requireApiKey } from "@/lib/http/guards";
import { ExecuteRequest } from "@/lib/http/schemas";

export const POST = withApi<{ id: string }>(async (req, { params }) => {
  const principal = await requireApiKey(req, "services:execute");
  const { input } = await readJson(req, ExecuteRequest, { maxBytes: bodyLimitOf(params.id) });
  return submitAndRespond(principal, params.id, input, idempotencyKeyOf(req));
});
