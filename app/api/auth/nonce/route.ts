import { issueNonce } from "@/lib/domain/sign-in";
import { withApi } from "@/lib/http/api";
import { limitSignIn } from "@/lib/http/guards";
import { routes } from "@/lib/http/routes";
import { readSession, sessionCookie } from "@/lib/http/session";

export const GET = withApi(routes.issueNonce, async (req, { json }) => {
  await limitSignIn(req);
  const session = await readSession(req);
  const { nonce, issuedAt } = await issueNonce();
  return json(
    { nonce },
    {
      headers: {
        "set-cookie": await sessionCookie({ ...session, nonce, nonceIssuedAt: issuedAt }),
        "cache-control": "no-store",
      },
    },
  );
});

export * from "@/lib/http/other-methods";
