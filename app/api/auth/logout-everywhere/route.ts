import { revokeAllSessions } from "@/lib/domain/sessions";
import { noContent, withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";
import { clearedSessionCookie } from "@/lib/http/session";

export const POST = withApi(routes.signOutEverywhere, async (_req, { principal }) => {
  await revokeAllSessions(principal.accountId);
  return noContent({ "set-cookie": clearedSessionCookie() });
});

export * from "@/lib/http/other-methods";
