import { revokeSession } from "@/lib/domain/sessions";
import { noContent, withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";
import { clearedSessionCookie, readSession } from "@/lib/http/session";

export const POST = withApi(routes.signOut, async (req) => {
  const { sessionId } = await readSession(req);
  // Revoked server-side: a copy of the cookie kept elsewhere stops working too.
  if (sessionId) await revokeSession(sessionId);
  return noContent({ "set-cookie": clearedSessionCookie() });
});

export * from "@/lib/http/other-methods";
