import { createApiKey, listApiKeys } from "@/lib/domain/api-keys";
import { json, withApi } from "@/lib/http/api";
import { readJson } from "@/lib/http/body";
import { requireSession } from "@/lib/http/guards";
import { CreateKeyRequest } from "@/lib/http/schemas";

export const dynamic = "force-dynamic";

export const GET = withApi(async (req) => {
  const { accountId } = await requireSession(req);
  return json(await listApiKeys(accountId), { headers: { "cache-control": "no-store" } });
});

export const POST = withApi(async (req) => {
  const { accountId } = await requireSession(req);
  const input = await readJson(req, CreateKeyRequest);
  return json(await createApiKey(accountId, input), { status: 201, headers: { "cache-control": "no-store" } });
});
