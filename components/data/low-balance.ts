// The low-balance banner's data (CONTRACT §11): the balance, read only while the profile has a threshold.
import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "./fetch-api";
import { useProfile } from "./profile";
import type { CreditBalance } from "./types";

export const lowBalanceKeys = { balance: ["credits", "balance"] as const };

/** The balance and the threshold when the balance is below it; null otherwise (or while loading). */
export function useLowBalance(): { balance: number; threshold: number; refetch: () => void } | null {
  const profile = useProfile();
  const threshold = profile.data?.lowBalanceThreshold ?? null;
  const balance = useQuery({
    queryKey: lowBalanceKeys.balance,
    queryFn: ({ signal }) => apiFetch<CreditBalance>("/api/credits/balance", { signal }),
    enabled: threshold !== null,
  });
  if (threshold === null || !balance.data || balance.data.balance >= threshold) return null;
  return { balance: balance.data.balance, threshold, refetch: () => void balance.refetch() };
}
