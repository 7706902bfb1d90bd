import { rotateApiKey } from "@/lib/domain/api-keys";
import { json, withApi } from "@/lib/http/api";
import { readJson } from "@/lib/http/body";
import { requireSession } from "@/lib/http/guards";
import { RotateKeyRequest } from "@/lib/http/schemas";

export const POST = withApi<{ keyId: string }>(async (req, { params }) => {
  const { accountId } = await requireSession(req);
  const input = await readJson(req, RotateKeyRequest, { allowEmpty: true });
  return json(await rotateApiKey(accountId, params.keyId, input.gracePeriodSeconds), { headers: { "cache-control": "no-store" } });
});
