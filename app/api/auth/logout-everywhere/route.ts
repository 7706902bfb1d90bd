import { revokeAllSessions } from "@/lib/domain/sessions";
import { noContent, withApi } from "@/lib/http/api";
import { requireSession } from "@/lib/http/guards";
import { clearedSessionCookie } from "@/lib/http/session";

export const POST = withApi(async (req) => {
  const { accountId } = await requireSession(req);
  await revokeAllSessions(accountId);
  return noContent({ "set-cookie": clearedSessionCookie() });
});
