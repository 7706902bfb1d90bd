// Credits in the browser: the balance (for the low-balance banner) and top-ups — the list, followed live
// while a payment is on its way, and the submission of a transaction the wallet just sent. The balance and
// the history are otherwise read on the server with each page. One key factory for every credits query.
import * as React from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiFetch, isApiError } from "./fetch-api";
import { forgetSentPayment, readSentPayments, type SentPayment } from "./sent-payments";
import type { CreditBalance, TopUp, TopUpPage } from "./types";

export const creditKeys = {
  all: ["credits"] as const,
  balance: ["credits", "balance"] as const,
  topUps: ["credits", "top-ups"] as const,
  topUpPage: (page: number) => [...creditKeys.topUps, "list", page] as const,
  topUp: (topUpId: string | undefined) => [...creditKeys.topUps, "one", topUpId] as const,
};

/**
 * The balance and the threshold when the balance is below it; null otherwise (or while loading). Read only
 * while the profile has a threshold, which the server-rendered layout passes (asking for a profile that does
 * not exist yet would be a 404 in the console of every new account).
 */
export function useLowBalance(threshold: number | null): { balance: number; threshold: number } | null {
  const balance = useQuery({
    queryKey: creditKeys.balance,
    queryFn: ({ signal }) => apiFetch<CreditBalance>("/api/credits/balance", { signal }),
    enabled: threshold !== null,
  });
  if (threshold === null || !balance.data || balance.data.balance >= threshold) return null;
  return { balance: balance.data.balance, threshold };
}

/** Marks the balance stale (pages spend credits and add them): it is read again where it is shown. */
export function useRefreshBalance() {
  const queryClient = useQueryClient();
  return React.useCallback(() => void queryClient.invalidateQueries({ queryKey: creditKeys.balance }), [queryClient]);
}

export const isTopUpPending = (topUp: TopUp) => topUp.status === "submitted" || topUp.status === "confirming";

/** How often the page asks while a payment is pending: about one block on fast chains. */
const pendingRefreshMs = 1_500;

/** One page of top-ups, refreshed while any of them is still on its way. */
export function useTopUps(page: number, initial?: TopUpPage) {
  return useQuery({
    queryKey: creditKeys.topUpPage(page),
    queryFn: ({ signal }) => apiFetch<TopUpPage>(`/api/credits/top-ups?page=${page}&limit=10`, { signal }),
    initialData: initial,
    refetchInterval: (query) => (query.state.data?.data.some(isTopUpPending) ? pendingRefreshMs : false),
  });
}

/** Follows one top-up until it is credited or failed. */
export function useTopUp(topUpId: string | undefined) {
  return useQuery({
    queryKey: creditKeys.topUp(topUpId),
    queryFn: ({ signal }) => apiFetch<TopUp>(`/api/credits/top-ups/${topUpId}`, { signal }),
    enabled: Boolean(topUpId),
    refetchInterval: (query) => (query.state.data && !isTopUpPending(query.state.data) ? false : pendingRefreshMs),
  });
}

const recordTopUp = (body: SentPayment) => apiFetch<TopUp>("/api/credits/top-ups", { method: "POST", body });

/** Names again, once per page load, the payments this browser sent but never saw recorded. */
export function useRecordUnrecordedPayments() {
  const queryClient = useQueryClient();
  React.useEffect(() => {
    for (const payment of readSentPayments()) {
      recordTopUp(payment)
        .then(() => forgetSentPayment(payment.txHash))
        .catch((error: unknown) => {
          // Refused for good (another account's, not a payment): nothing to retry. Otherwise: next load.
          if (isApiError(error) && error.status >= 400 && error.status < 500) forgetSentPayment(payment.txHash);
        })
        // A recorded top-up may be credited already: the balance moves with the list.
        .finally(() => void queryClient.invalidateQueries({ queryKey: creditKeys.all }));
    }
  }, [queryClient]);
}

/** Attempts to record a sent payment: the money has left the wallet, so a busy server is asked again. */
const submitAttempts = 6;

/**
 * Records the transaction the wallet sent (POST /api/credits/top-ups). A server or RPC that does not answer
 * is retried with backoff; a refusal (422, 409) is final.
 */
export function useSubmitTopUp() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: recordTopUp,
    onSuccess: (_topUp, body) => forgetSentPayment(body.txHash),
    retry: (failures, error) =>
      failures < submitAttempts && (isApiError(error, "UNAVAILABLE") || isApiError(error, "NETWORK_ERROR")),
    retryDelay: (attempt) => Math.min(1_000 * 2 ** attempt, 10_000),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: creditKeys.all }),
  });
}
