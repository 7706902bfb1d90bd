import { verifySignIn } from "@/lib/domain/sign-in";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";
import { readSession, sessionCookie } from "@/lib/http/session";

export const POST = withApi(routes.verifySignIn, async (req, { body, json }) => {
  const session = await readSession(req);
  const signedIn = await verifySignIn({
    message: body.message,
    signature: body.signature as `0x${string}`,
    sessionNonce: session.nonce,
  });
  // A fresh cookie without the spent nonce: the signed-in session starts clean.
  const cookie = await sessionCookie({ accountId: signedIn.accountId, address: signedIn.address, chainId: signedIn.chainId });
  return json({ address: signedIn.address, chainId: signedIn.chainId }, { headers: { "set-cookie": cookie } });
});
