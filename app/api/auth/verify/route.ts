import { startSession } from "@/lib/domain/sessions";
import { verifySignIn } from "@/lib/domain/sign-in";
import { withApi } from "@/lib/http/api";
import { limitSignIn } from "@/lib/http/guards";
import { routes } from "@/lib/http/routes";
import { readSession, sessionCookie } from "@/lib/http/session";

export const POST = withApi(routes.verifySignIn, async (req, { body, json }) => {
  await limitSignIn(req);
  const session = await readSession(req);
  const signedIn = await verifySignIn({
    message: body.message,
    signature: body.signature as `0x${string}`,
    sessionNonces: session.nonces?.map((n) => n.nonce) ?? [],
  });
  // A fresh cookie without the spent nonce: the signed-in session starts clean, held server-side.
  const sessionId = await startSession(signedIn.accountId);
  const cookie = await sessionCookie({
    sessionId,
    accountId: signedIn.accountId,
    address: signedIn.address,
    chainId: signedIn.chainId,
  });
  return json({ address: signedIn.address, chainId: signedIn.chainId }, { headers: { "set-cookie": cookie } });
});

export * from "@/lib/http/other-methods";
