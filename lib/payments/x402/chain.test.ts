// Which transfer an authorization's use made, read from its transaction's token logs (paidByUse): the neighbour of
// its AuthorizationUsed log on the side the token emits it, whichever side that is, and never another use's.
import { describe, expect, it } from "vitest";
import type { Address, Hex } from "viem";
import { paidByUse, type TokenLog } from "./chain";

const payer = "0x00000000000000000000000000000000000000aa" as Address;
const treasury = "0x00000000000000000000000000000000000000bb" as Address;
const ours = `0x${"01".repeat(32)}` as Hex;
const other = `0x${"02".repeat(32)}` as Hex;
const value = 10_000n;

type Entry = ["used", Hex] | ["transfer", Address, bigint] | ["plain", Address, bigint];

/** One transaction's token logs, from logIndex 0: a use (its nonce), its transfer (to, value), a plain transfer. */
const transaction = (...entries: Entry[]): TokenLog[] =>
  entries.map((entry, logIndex) => {
    const where = { transactionHash: "0xabc", logIndex };
    if (entry[0] === "used") return { ...where, kind: "used", authorizer: payer, nonce: entry[1] };
    return { ...where, kind: "transfer", from: payer, to: entry[1], value: entry[2] };
  });

/** Whether our use (the log with our nonce) moved `value` from the payer to the treasury. */
function paid(logs: TokenLog[]): boolean {
  const use = logs.find((log) => log.kind === "used" && log.nonce === ours);
  if (!use) throw new Error("no use of ours in the transaction");
  return paidByUse(logs, use.logIndex, (t) => t.from === payer && t.to === treasury && t.value === value);
}

describe("a use's transfer, on the side its token emits it", () => {
  it("after its AuthorizationUsed log (USDC's order)", () => {
    expect(paid(transaction(["used", ours], ["transfer", treasury, value]))).toBe(true);
  });

  it("before its AuthorizationUsed log (a token that emits the Transfer first)", () => {
    expect(paid(transaction(["transfer", treasury, value], ["used", ours]))).toBe(true);
  });

  it("is refused when it paid someone else or less, on either side", () => {
    expect(paid(transaction(["used", ours], ["transfer", payer, value]))).toBe(false);
    expect(paid(transaction(["used", ours], ["transfer", treasury, 1n]))).toBe(false);
    expect(paid(transaction(["transfer", payer, value], ["used", ours]))).toBe(false);
    expect(paid(transaction(["transfer", treasury, 1n], ["used", ours]))).toBe(false);
  });
});

describe("several uses in one transaction (a batch)", () => {
  it("ours is paid by its own transfer, wherever it stands in the batch", () => {
    // USDC's order, ours second, after a use that paid the payer.
    expect(
      paid(transaction(["used", other], ["transfer", payer, value], ["used", ours], ["transfer", treasury, value])),
    ).toBe(true);
    // The other order, ours first.
    expect(
      paid(transaction(["transfer", treasury, value], ["used", ours], ["transfer", payer, value], ["used", other])),
    ).toBe(true);
  });

  it("the neighbouring use's transfer to the treasury never pays for ours", () => {
    // USDC's order: the transfer before ours is the other use's.
    expect(
      paid(transaction(["used", other], ["transfer", treasury, value], ["used", ours], ["transfer", payer, value])),
    ).toBe(false);
    // The other order: the transfer after ours is the other use's.
    expect(
      paid(transaction(["transfer", payer, value], ["used", ours], ["transfer", treasury, value], ["used", other])),
    ).toBe(false);
  });

  it("when a plain transfer makes both sides fit, ours counts only if both sides pay", () => {
    // A plain transfer from the payer to the treasury, then our use in USDC's order, which paid the payer.
    expect(paid(transaction(["plain", treasury, value], ["used", ours], ["transfer", payer, value]))).toBe(false);
    expect(paid(transaction(["plain", treasury, value], ["used", ours], ["transfer", treasury, value]))).toBe(true);
  });
});
