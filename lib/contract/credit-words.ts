// Amounts of credits in words, one way for the dashboard, the API's messages and the job logs: "1 credit",
// "1,250 credits", "1 more credit"; never "1 credits" or "-0 credits".
const integer = new Intl.NumberFormat("en");

/** The noun for a count, where the count is styled apart from it: "credit" for ±1, else "credits". */
export const creditNoun = (n: number) => (Math.abs(n) === 1 ? "credit" : "credits");

/** "1,250" with a true minus sign; zero is never signed (a sum of negated charges can be −0). */
export function formatCreditNumber(n: number): string {
  return n < 0 ? `−${integer.format(-n)}` : integer.format(Math.abs(n));
}

/** "1 credit", "−5 credits", "1 more credit" (`qualifier` sits between the count and the noun). */
export function formatCredits(n: number, qualifier?: string): string {
  return `${formatCreditNumber(n)} ${qualifier ? `${qualifier} ` : ""}${creditNoun(n)}`;
}
