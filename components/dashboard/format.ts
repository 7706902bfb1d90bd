// Display formatting shared by the dashboard's pages.

export function shortAddress(address: string): string {
  return address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

const dateTime = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeStyle: "short" });
const dateOnly = new Intl.DateTimeFormat("en", { dateStyle: "medium" });
const integer = new Intl.NumberFormat("en");

export const formatDateTime = (iso: string | null | undefined, empty = "—") => (iso ? dateTime.format(new Date(iso)) : empty);
export const formatDate = (iso: string | null | undefined, empty = "—") => (iso ? dateOnly.format(new Date(iso)) : empty);
export const formatNumber = (n: number) => integer.format(n);

export function formatSignedCredits(amount: number): string {
  return amount > 0 ? `+${integer.format(amount)}` : amount < 0 ? `−${integer.format(-amount)}` : "0";
}

/** "dev_AbCd1234…" — the safe-to-show part of a key. */
export const keyPreview = (prefix: string) => `dev_${prefix}…`;
