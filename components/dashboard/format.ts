// Display formatting shared by the dashboard's pages: one way to write a date, an amount of credits and a
// name. Dates are written in UTC, so the server and the browser render the same string. Credits are written by
// lib/contract/credit-words.ts, which the API's messages share.
import { creditNoun, formatCreditNumber, formatCredits } from "@/lib/contract/credit-words";

export { creditNoun, formatCreditNumber, formatCredits };

export function shortAddress(address: string): string {
  return address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

/** The name a new developer profile starts with until its owner picks one. */
export const suggestedProfileName = (address: string) => `Developer ${shortAddress(address)}`;

const dateTime = new Intl.DateTimeFormat("en", {
  dateStyle: "medium",
  timeStyle: "short",
  timeZone: "UTC",
  hourCycle: "h23",
});
const dateTimeSeconds = new Intl.DateTimeFormat("en", {
  dateStyle: "medium",
  timeStyle: "medium",
  timeZone: "UTC",
  hourCycle: "h23",
});
const dateOnly = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeZone: "UTC" });
const integer = new Intl.NumberFormat("en");

/** "Nov 25, 2026, 14:03 UTC". */
export const formatDateTime = (iso: string | null | undefined, empty = "—") =>
  iso ? `${dateTime.format(new Date(iso))} UTC` : empty;
/** "Nov 25, 2026, 14:03:07 UTC": for events seconds apart (a webhook's attempts). */
export const formatDateTimeSeconds = (iso: string | null | undefined, empty = "—") =>
  iso ? `${dateTimeSeconds.format(new Date(iso))} UTC` : empty;
export const formatDate = (iso: string | null | undefined, empty = "—") =>
  iso ? dateOnly.format(new Date(iso)) : empty;
export const formatNumber = (n: number) => integer.format(n);

/** A ledger movement in words: "1 credit charged", "refunded 5 credits". */
export function formatCreditMovement(amount: number): string {
  if (amount < 0) return `${formatCredits(-amount)} charged`;
  if (amount > 0) return `refunded ${formatCredits(amount)}`;
  return "no credits charged";
}

/** A ledger entry's amount: "+100", "−1", "0". */
export const formatSignedCredits = (amount: number) =>
  amount > 0 ? `+${formatCreditNumber(amount)}` : formatCreditNumber(amount);

/** "dev_AbCd1234…" — the safe-to-show part of a key. */
export const keyPreview = (prefix: string) => `dev_${prefix}…`;
