import { createProfile } from "@/lib/domain/accounts";
import { json, withApi } from "@/lib/http/api";
import { readJson } from "@/lib/http/body";
import { requireSession } from "@/lib/http/guards";
import { CreateProfileRequest } from "@/lib/http/schemas";

export const POST = withApi(async (req) => {
  const { accountId } = await requireSession(req);
  const input = await readJson(req, CreateProfileRequest);
  return json(await createProfile(accountId, input), { status: 201 });
});
