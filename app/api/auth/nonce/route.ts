import { issueNonce } from "@/lib/domain/sign-in";
import { json, withApi } from "@/lib/http/api";
import { limitSignIn } from "@/lib/http/guards";
import { readSession, sessionCookie } from "@/lib/http/session";

export const dynamic = "force-dynamic";

export const GET = withApi(async (req) => {
  await limitSignIn(req);
  const session = await readSession(req);
  const { nonce, issuedAt } = await issueNonce();
  return json({ nonce }, { headers: { "set-cookie": await sessionCookie({ ...session, nonce, nonceIssuedAt: issuedAt }), "cache-control": "no-store" } });
});
