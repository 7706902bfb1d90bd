import { startSession } from "@/lib/domain/sessions";
import { verifySignIn } from "@/lib/domain/sign-in";
import { json, withApi } from "@/lib/http/api";
import { readJson } from "@/lib/http/body";
import { checkOrigin, limitSignIn } from "@/lib/http/guards";
import { VerifyRequest } from "@/lib/http/schemas";
import { readSession, sessionCookie } from "@/lib/http/session";

export const POST = withApi(async (req) => {
  await limitSignIn(req);
  checkOrigin(req);
  const body = await readJson(req, VerifyRequest);
  const session = await readSession(req);
  const signedIn = await verifySignIn({
    message: body.message,
    signature: body.signature as `0x${string}`,
    sessionNonce: session.nonce,
  });
  // A fresh cookie without the spent nonce: the signed-in session starts clean.
  const sessionId = await startSession(signedIn.accountId);
  const cookie = await sessionCookie({ sessionId, accountId: signedIn.accountId, address: signedIn.address, chainId: signedIn.chainId });
  return json({ address: signedIn.address, chainId: signedIn.chainId }, { headers: { "set-cookie": cookie } });
});
