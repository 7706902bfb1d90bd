// Display formatting shared by the dashboard's pages: one way to write a date, an amount of credits and a
// name. Dates are written in UTC, so the server and the browser render the same string.

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
const dateOnly = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeZone: "UTC" });
const integer = new Intl.NumberFormat("en");

/** "Nov 25, 2026, 14:03 UTC". */
export const formatDateTime = (iso: string | null | undefined, empty = "—") =>
  iso ? `${dateTime.format(new Date(iso))} UTC` : empty;
export const formatDate = (iso: string | null | undefined, empty = "—") =>
  iso ? dateOnly.format(new Date(iso)) : empty;
export const formatNumber = (n: number) => integer.format(n);

/** "1 credit", "1,250 credits". */
export const formatCredits = (n: number) => `${integer.format(n)} ${Math.abs(n) === 1 ? "credit" : "credits"}`;

/** A ledger movement in words: "1 credit charged", "refunded 5 credits". */
export function formatCreditMovement(amount: number): string {
  if (amount < 0) return `${formatCredits(-amount)} charged`;
  if (amount > 0) return `refunded ${formatCredits(amount)}`;
  return "no credits charged";
}

export function formatSignedCredits(amount: number): string {
  return amount > 0 ? `+${integer.format(amount)}` : amount < 0 ? `−${integer.format(-amount)}` : "0";
}

/** "dev_AbCd1234…" — the safe-to-show part of a key. */
export const keyPreview = (prefix: string) => `dev_${prefix}…`;
