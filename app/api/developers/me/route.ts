import { getProfile, updateProfile } from "@/lib/domain/accounts";
import { json, withApi } from "@/lib/http/api";
import { readJson } from "@/lib/http/body";
import { requireSession } from "@/lib/http/guards";
import { UpdateProfileRequest } from "@/lib/http/schemas";

export const dynamic = "force-dynamic";

export const GET = withApi(async (req) => {
  const { accountId } = await requireSession(req);
  return json(await getProfile(accountId));
});

export const PATCH = withApi(async (req) => {
  const { accountId } = await requireSession(req);
  const input = await readJson(req, UpdateProfileRequest);
  return json(await updateProfile(accountId, input));
});
