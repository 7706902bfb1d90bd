// Payments the wallet sent that the server has not confirmed recording yet, kept in this browser until it
// has: a reload (or a lost connection) between the wallet's answer and the server's leaves the hash here, and
// the Credits page names it again on its next load. (The watcher finds it on-chain anyway; this is sooner.)
const storageKey = "execution-network:unrecorded-top-ups";

export interface SentPayment {
  chainId: number;
  txHash: string;
}

export function readSentPayments(): SentPayment[] {
  try {
    const parsed: unknown = JSON.parse(window.localStorage.getItem(storageKey) ?? "[]");
    return Array.isArray(parsed)
      ? parsed.filter((p): p is SentPayment => typeof p?.chainId === "number" && typeof p?.txHash === "string")
      : [];
  } catch {
    return [];
  }
}

function writeSentPayments(payments: SentPayment[]) {
  try {
    window.localStorage.setItem(storageKey, JSON.stringify(payments.slice(-20)));
  } catch {
    // Storage refused (private mode, quota): the watcher still finds the payment.
  }
}

export const rememberSentPayment = (payment: SentPayment) =>
  writeSentPayments([...readSentPayments().filter((p) => p.txHash !== payment.txHash), payment]);
export const forgetSentPayment = (txHash: string) =>
  writeSentPayments(readSentPayments().filter((p) => p.txHash !== txHash));
