// The low-balance banner's data (CONTRACT §11): the balance, read only while there is a threshold.
import { skipToken, useQuery } from "@tanstack/react-query";
import { apiFetch } from "./fetch-api";
import { queryKeys } from "./query-keys";
import type { CreditBalance, Profile } from "./types";

export const lowBalanceKeys = { balance: ["credits", "balance"] as const };

/**
 * The balance and the threshold when the balance is below it; null otherwise (or while loading).
 * `serverThreshold` is the profile's as the page was rendered; a profile read or saved since (the cached
 * profile, never fetched from here: a developer without a profile would get a 404 on every page) wins.
 */
export function useLowBalance(serverThreshold: number | null): { balance: number; threshold: number } | null {
  const profile = useQuery<Profile | null>({ queryKey: queryKeys.profile, queryFn: skipToken });
  const threshold = profile.data === undefined ? serverThreshold : (profile.data?.lowBalanceThreshold ?? null);
  const balance = useQuery({
    queryKey: lowBalanceKeys.balance,
    queryFn: ({ signal }) => apiFetch<CreditBalance>("/api/credits/balance", { signal }),
    enabled: threshold !== null,
  });
  if (threshold === null || !balance.data || balance.data.balance >= threshold) return null;
  return { balance: balance.data.balance, threshold };
}
