// The low-balance banner's data (CONTRACT §11): the balance, read only while the profile has a threshold.
// The threshold comes from the server-rendered layout (asking for a profile that does not exist yet would
// be a 404 in the console of every new account).
import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "./fetch-api";
import type { CreditBalance } from "./types";

export const lowBalanceKeys = { balance: ["credits", "balance"] as const };

/** The balance and the threshold when the balance is below it; null otherwise (or while loading). */
export function useLowBalance(
  threshold: number | null,
): { balance: number; threshold: number; refetch: () => void } | null {
  const balance = useQuery({
    queryKey: lowBalanceKeys.balance,
    queryFn: ({ signal }) => apiFetch<CreditBalance>("/api/credits/balance", { signal }),
    enabled: threshold !== null,
  });
  if (threshold === null || !balance.data || balance.data.balance >= threshold) return null;
  return { balance: balance.data.balance, threshold, refetch: () => void balance.refetch() };
}
