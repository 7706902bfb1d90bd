import { issueNonce, withIssuedNonce } from "@/lib/domain/sign-in";
import { withApi } from "@/lib/http/api";
import { limitSignIn } from "@/lib/http/guards";
import { routes } from "@/lib/http/routes";
import { readSession, sessionCookie } from "@/lib/http/session";

export const GET = withApi(routes.issueNonce, async (req, { json }) => {
  await limitSignIn(req);
  const session = await readSession(req);
  const issued = await issueNonce();
  return json(
    { nonce: issued.nonce },
    {
      headers: {
        "set-cookie": await sessionCookie({ ...session, nonces: withIssuedNonce(session.nonces ?? [], issued) }),
        "cache-control": "no-store",
      },
    },
  );
});

export * from "@/lib/http/other-methods";
