import { revokeApiKey } from "@/lib/domain/api-keys";
import { json, withApi } from "@/lib/http/api";
import { requireSession } from "@/lib/http/guards";

export const DELETE = withApi<{ keyId: string }>(async (req, { params }) => {
  const { accountId } = await requireSession(req);
  return json(await revokeApiKey(accountId, params.keyId));
});
