// Credit top-ups in the dashboard: the list (followed live while a payment is on its way) and the
// submission of a transaction the wallet just sent. One module owns their query keys.
import * as React from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiFetch, isApiError } from "./fetch-api";
import type { TopUp, TopUpPage } from "./types";

export const topUpKeys = {
  all: ["top-ups"] as const,
  list: (page: number) => ["top-ups", "list", page] as const,
};

export const isTopUpPending = (topUp: TopUp) => topUp.status === "submitted" || topUp.status === "confirming";

/** How often the page asks while a payment is pending: about one block on fast chains. */
const pendingRefreshMs = 1_500;

/** One page of top-ups, refreshed while any of them is still on its way. */
export function useTopUps(page: number, initial?: TopUpPage) {
  return useQuery({
    queryKey: topUpKeys.list(page),
    queryFn: ({ signal }) => apiFetch<TopUpPage>(`/api/credits/top-ups?page=${page}&limit=10`, { signal }),
    initialData: initial,
    refetchInterval: (query) => (query.state.data?.data.some(isTopUpPending) ? pendingRefreshMs : false),
  });
}

/**
 * Payments the wallet sent that the server has not confirmed recording yet, kept in this browser until it
 * has: a reload (or a lost connection) between the wallet's answer and the server's leaves the hash here, and
 * the Credits page names it again on its next load. (The watcher finds it on-chain anyway; this is sooner.)
 */
const unrecordedKey = "execution-network:unrecorded-top-ups";

export interface SentPayment {
  chainId: number;
  txHash: string;
}

function readUnrecorded(): SentPayment[] {
  try {
    const parsed: unknown = JSON.parse(window.localStorage.getItem(unrecordedKey) ?? "[]");
    return Array.isArray(parsed)
      ? parsed.filter((p): p is SentPayment => typeof p?.chainId === "number" && typeof p?.txHash === "string")
      : [];
  } catch {
    return [];
  }
}

function writeUnrecorded(payments: SentPayment[]) {
  try {
    window.localStorage.setItem(unrecordedKey, JSON.stringify(payments.slice(-20)));
  } catch {
    // Storage refused (private mode, quota): the watcher still finds the payment.
  }
}

export const rememberSentPayment = (payment: SentPayment) =>
  writeUnrecorded([...readUnrecorded().filter((p) => p.txHash !== payment.txHash), payment]);
export const forgetSentPayment = (txHash: string) =>
  writeUnrecorded(readUnrecorded().filter((p) => p.txHash !== txHash));

/** Names again, once per page load, the payments this browser sent but never saw recorded. */
export function useRecordUnrecordedPayments() {
  const queryClient = useQueryClient();
  React.useEffect(() => {
    for (const payment of readUnrecorded()) {
      apiFetch<TopUp>("/api/credits/top-ups", { method: "POST", body: payment })
        .then(() => forgetSentPayment(payment.txHash))
        .catch((error: unknown) => {
          // Refused for good (another account's, not a payment): nothing to retry. Otherwise: next load.
          if (isApiError(error) && error.status >= 400 && error.status < 500) forgetSentPayment(payment.txHash);
        })
        .finally(() => void queryClient.invalidateQueries({ queryKey: topUpKeys.all }));
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
    mutationFn: (body: SentPayment) => apiFetch<TopUp>("/api/credits/top-ups", { method: "POST", body }),
    onSuccess: (_topUp, body) => forgetSentPayment(body.txHash),
    retry: (failures, error) =>
      failures < submitAttempts && (isApiError(error, "UNAVAILABLE") || isApiError(error, "NETWORK_ERROR")),
    retryDelay: (attempt) => Math.min(1_000 * 2 ** attempt, 10_000),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: topUpKeys.all }),
  });
}

/** Follows one top-up until it is credited or failed. */
export function useTopUp(topUpId: string | undefined) {
  return useQuery({
    queryKey: [...topUpKeys.all, "one", topUpId],
    queryFn: ({ signal }) => apiFetch<TopUp>(`/api/credits/top-ups/${topUpId}`, { signal }),
    enabled: Boolean(topUpId),
    refetchInterval: (query) => (query.state.data && !isTopUpPending(query.state.data) ? false : pendingRefreshMs),
  });
}
