import { describe, expect, it } from "vitest";
import { ApiError } from "@/components/data/fetch-api";
import { describePaymentError, WrongAccountError } from "./payment-errors";

const context = { tokenSymbol: "USDC", chainName: "Base", chainId: 8453 };
const rpcError = (message: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(message), extra);
/** As wagmi wraps a wallet's answer: the wallet's error is a cause deep inside. */
const wrapped = (cause: unknown) =>
  Object.assign(new Error("Transaction failed."), {
    name: "TransactionExecutionError",
    shortMessage: "Transaction failed.",
    cause,
  });

describe("what a person reads when a payment does not go through", () => {
  it("rejected in the wallet: nothing was sent", () => {
    expect(
      describePaymentError(wrapped(rpcError("User rejected the request.", { code: 4001 })), context),
    ).toMatchObject({ title: "Payment rejected", message: expect.stringContaining("Nothing was sent") });
  });

  it("another account selected in the wallet: switch to the signed-in one", () => {
    expect(describePaymentError(new WrongAccountError("0xA", "0xB"), context).message).toContain(
      "you signed in as 0xB",
    );
  });

  it("the wallet cannot switch to the payments chain: names the chain", () => {
    expect(describePaymentError(wrapped(rpcError("Unrecognized chain ID", { code: 4902 })), context)).toMatchObject({
      title: "Wrong network",
      message: expect.stringContaining("Base (chain 8453)"),
    });
  });

  it("not enough gas money, or not enough of the token", () => {
    expect(describePaymentError(wrapped(rpcError("insufficient funds for gas * price + value")), context).title).toBe(
      "Not enough for the network fee",
    );
    expect(
      describePaymentError(wrapped(rpcError("execution reverted: transfer amount exceeds balance")), context).title,
    ).toBe("Not enough USDC");
  });

  it("the wallet's RPC does not answer", () => {
    expect(describePaymentError(wrapped(rpcError("HTTP request failed.")), context).title).toBe(
      "The network does not answer",
    );
  });

  it("sent, but the server could not check the chain: do not pay again, it will be credited", () => {
    const problem = describePaymentError(
      new ApiError(503, "UNAVAILABLE", "The payments network does not answer right now."),
      context,
    );
    expect(problem).toMatchObject({ isSent: true, title: "Sent, but not yet recorded" });
    expect(problem.message).toContain("Do not pay again");
  });

  it("reverted on-chain: nothing was paid", () => {
    const problem = describePaymentError(
      new ApiError(422, "INVALID_PAYMENT", "failed", "req_1", { reason: "TX_FAILED" }),
      context,
    );
    expect(problem).toMatchObject({ title: "The transaction failed", requestId: "req_1" });
  });
});
