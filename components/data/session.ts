// The wallet session: signing in (a nonce to put in the Sign-In with Ethereum message, then the signed
// message verified) and signing out, which forgets everything this tab cached for the account.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiFetch, sessionEnded } from "./fetch-api";
import type { Session } from "./types";

export const requestSignInNonce = async () => (await apiFetch<{ nonce: string }>("/api/auth/nonce")).nonce;

export async function verifySignIn(message: string, signature: string) {
  const session = await apiFetch<Session>("/api/auth/verify", { method: "POST", body: { message, signature } });
  sessionEnded.reset();
  return session;
}

/**
 * Signs this browser out; with `everywhere`, revokes every session of the account (all browsers). Then
 * `onSignedOut` (e.g. to leave the page): it runs here, because clearing the cache also drops the mutation.
 */
export function useSignOut({ everywhere = false, onSignedOut }: { everywhere?: boolean; onSignedOut: () => void }) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      apiFetch<void>(everywhere ? "/api/auth/logout-everywhere" : "/api/auth/logout", { method: "POST" }),
    onSuccess: () => {
      // Nothing of this account may linger for whoever signs in next in this tab.
      queryClient.clear();
      onSignedOut();
    },
  });
}
