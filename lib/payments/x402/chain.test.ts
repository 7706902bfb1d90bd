// Which transfer an authorization's use made, read from its transaction's token logs (paidByUse): the neighbour of
// its AuthorizationUsed log on the side the token emits it (a fixed property of the token: X402_TRANSFER_LOG),
// never another use's, nor a plain transfer anyone can put on the other side.
import { describe, expect, it, vi } from "vitest";
import { toHex, type Address, type Hex } from "viem";
import { log } from "@/lib/log";
import { paidByUse, type TokenLog } from "./chain";

const payer = "0x00000000000000000000000000000000000000aa" as Address;
const treasury = "0x00000000000000000000000000000000000000bb" as Address;
const anyone = "0x00000000000000000000000000000000000000cc" as Address;
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

/** Whether our use (the log with our nonce) moved `value` from the payer to the treasury, the token's Transfer on `side`. */
function paid(logs: TokenLog[], side: "after" | "before" = "after"): boolean | undefined {
  const use = logs.find((log) => log.kind === "used" && log.nonce === ours);
  if (!use) throw new Error("no use of ours in the transaction");
  return paidByUse(logs, use.logIndex, side, (t) => t.from === payer && t.to === treasury && t.value === value);
}

describe("a use's transfer, on the side its token emits it", () => {
  it("after its AuthorizationUsed log (USDC's order, the default)", () => {
    expect(paid(transaction(["used", ours], ["transfer", treasury, value]))).toBe(true);
  });

  it("before its AuthorizationUsed log (a token configured to emit the Transfer first)", () => {
    expect(paid(transaction(["transfer", treasury, value], ["used", ours]), "before")).toBe(true);
  });

  it("is refused when it paid someone else or less", () => {
    expect(paid(transaction(["used", ours], ["transfer", payer, value]))).toBe(false);
    expect(paid(transaction(["used", ours], ["transfer", treasury, 1n]))).toBe(false);
    expect(paid(transaction(["transfer", payer, value], ["used", ours]), "before")).toBe(false);
    expect(paid(transaction(["transfer", treasury, 1n], ["used", ours]), "before")).toBe(false);
  });

  it("says nothing (undefined, never a refusal) when the token's side holds no Transfer of the payer's", () => {
    expect(paid(transaction(["transfer", treasury, value], ["used", ours]))).toBeUndefined();
    expect(paid(transaction(["used", ours], ["transfer", treasury, value]), "before")).toBeUndefined();
  });
});

describe("several uses or transfers in one transaction (a batch)", () => {
  it("ours is paid by its own transfer, wherever it stands in the batch", () => {
    expect(
      paid(transaction(["used", other], ["transfer", payer, value], ["used", ours], ["transfer", treasury, value])),
    ).toBe(true);
    expect(
      paid(
        transaction(["transfer", treasury, value], ["used", ours], ["transfer", payer, value], ["used", other]),
        "before",
      ),
    ).toBe(true);
  });

  it("the neighbouring use's transfer to the treasury never pays for ours: refused, every use holding its own transfer", () => {
    expect(
      paid(transaction(["used", other], ["transfer", treasury, value], ["used", ours], ["transfer", payer, value])),
    ).toBe(false);
    expect(
      paid(
        transaction(["transfer", payer, value], ["used", ours], ["transfer", treasury, value], ["used", other]),
        "before",
      ),
    ).toBe(false);
    expect(
      paid(transaction(["used", other], ["transfer", treasury, 1n], ["used", ours], ["transfer", payer, value])),
    ).toBe(false);
  });

  it("a wrong X402_TRANSFER_LOG never fails a batched payment that moved: left settling, logged", () => {
    // A relayer batches two of the payer's authorizations, USDC (Transfer after) read with "before": our use's
    // "before" neighbour is the first use's transfer (another value); our own transfer, after, paid exactly.
    const errors = vi.spyOn(log, "error").mockImplementation(() => undefined);
    try {
      expect(
        paid(
          transaction(["used", other], ["transfer", treasury, 1n], ["used", ours], ["transfer", treasury, value]),
          "before",
        ),
      ).toBeUndefined();
      expect(errors).toHaveBeenCalledWith(
        expect.stringContaining("X402_TRANSFER_LOG"),
        expect.objectContaining({ X402_TRANSFER_LOG: "before" }),
      );
      // Neither side pays: refused.
      expect(
        paid(
          transaction(["used", other], ["transfer", treasury, 1n], ["used", ours], ["transfer", treasury, 2n]),
          "before",
        ),
      ).toBe(false);
    } finally {
      errors.mockRestore();
    }
  });

  it("a 0-value transfer of the payer's that anyone puts before our use never fails a payment that moved", () => {
    // transferFrom(payer, anyone, 0) needs no allowance: a front-runner's batch puts it before our authorization.
    expect(paid(transaction(["plain", anyone, 0n], ["used", ours], ["transfer", treasury, value]))).toBe(true);
    expect(paid(transaction(["used", ours], ["transfer", treasury, value], ["plain", anyone, 0n]), "before")).toBe(
      undefined,
    );
    expect(paid(transaction(["plain", anyone, 0n], ["transfer", treasury, value], ["used", ours]), "before")).toBe(
      true,
    );
  });

  it("a plain transfer beside ours pays for nothing", () => {
    expect(paid(transaction(["plain", treasury, value], ["used", ours], ["transfer", payer, value]))).toBe(false);
    expect(paid(transaction(["plain", treasury, 1n], ["used", ours], ["transfer", payer, value]))).toBe(false);
    expect(paid(transaction(["plain", treasury, value], ["used", ours], ["transfer", treasury, value]))).toBe(true);
  });
});

describe("a relayer's batch of many uses", () => {
  it("is judged by reading each of its logs a bounded number of times: 2,000 uses with their transfers, ours refused", () => {
    const uses = 2_000;
    const logs: TokenLog[] = [];
    for (let i = 0; i < uses; i++) {
      const nonce = toHex(i + 3, { size: 32 });
      logs.push({ transactionHash: "0xabc", logIndex: 2 * i, kind: "used", authorizer: payer, nonce });
      logs.push({ transactionHash: "0xabc", logIndex: 2 * i + 1, kind: "transfer", from: payer, to: anyone, value });
    }
    // Ours last, its transfer to the payer: every other use's side is looked at before it is refused.
    logs.push({ transactionHash: "0xabc", logIndex: 2 * uses, kind: "used", authorizer: payer, nonce: ours });
    logs.push({ transactionHash: "0xabc", logIndex: 2 * uses + 1, kind: "transfer", from: payer, to: payer, value });
    // Counted, not timed: every read of a log by its position in the list.
    let reads = 0;
    const counted = new Proxy(logs, {
      get(target, property, receiver) {
        if (typeof property === "string" && /^\d+$/.test(property)) reads++;
        return Reflect.get(target, property, receiver);
      },
    });
    const answer = paidByUse(counted, 2 * uses, "after", (t) => t.to === treasury && t.value === value);
    expect(answer).toBe(false);
    // Linear: a few reads per log. Looking each use's transfer up in the list (as it once did) read the list
    // once per use (40,000 uses: 17 s where this takes 0.2 s).
    expect(reads).toBeLessThan(5 * logs.length);
  });
});
