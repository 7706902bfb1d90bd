import {
  ChainMismatchError,
  ContractFunctionExecutionError,
  ContractFunctionRevertedError,
  erc20Abi,
  InsufficientFundsError,
  SwitchChainError,
  TransactionExecutionError,
  UnsupportedProviderMethodError,
  UserRejectedRequestError,
} from "viem";
import { mainnet } from "viem/chains";
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

  describe("classified by the root cause viem and wagmi wrap", () => {
    const asWagmiThrows = (cause: Error) =>
      new TransactionExecutionError(cause as never, { account: undefined, chain: mainnet } as never);

    it("the token reverting the transfer (then the wallet lacking a second method) is not enough of the token", () => {
      const revert = new ContractFunctionRevertedError({
        abi: erc20Abi,
        functionName: "transfer",
        message: "execution reverted: ERC20: transfer amount exceeds balance",
      });
      const executed = new ContractFunctionExecutionError(revert, {
        abi: erc20Abi,
        functionName: "transfer",
        args: ["0x0000000000000000000000000000000000000001", 1n],
      });
      // What the 2,000-of-1,000 walk saw: the wallet's "method not supported" wrapped around the chain's revert.
      const unsupported = new UnsupportedProviderMethodError(executed);
      expect(describePaymentError(unsupported, context)).toMatchObject({
        title: "Not enough USDC",
        message: expect.stringContaining("does not hold enough USDC"),
      });
      expect(describePaymentError(unsupported, context).message).not.toContain("does not support");
    });

    it("declining the network switch says so, naming the chain, not that the payment was rejected", () => {
      const declined = new UserRejectedRequestError(new Error("User rejected the request."));
      const problem = describePaymentError(declined, context, "switch");
      expect(problem.title).toBe("Network not switched");
      expect(problem.message).toContain("You declined switching to Base");
      expect(problem.message).not.toContain("rejected the request");
      // The same refusal at Pay is the payment rejected.
      expect(describePaymentError(asWagmiThrows(declined), context).title).toBe("Payment rejected");
    });

    it("a wallet that cannot switch, or is on another chain than the transaction's, names the chain", () => {
      expect(describePaymentError(new SwitchChainError(new Error("nope")), context, "switch")).toMatchObject({
        title: "Wrong network",
        message: expect.stringContaining("Base (chain 8453)"),
      });
      const mismatch = new ChainMismatchError({ chain: { ...mainnet, id: 8453, name: "Base" }, currentChainId: 1 });
      expect(describePaymentError(asWagmiThrows(mismatch), context).title).toBe("Wrong network");
    });

    it("not enough of the chain's currency for the fee", () => {
      expect(describePaymentError(asWagmiThrows(new InsufficientFundsError()), context).title).toBe(
        "Not enough for the network fee",
      );
    });

    it("a wallet lacking a method, with nothing deeper, says the wallet cannot do it (no provider jargon)", () => {
      const problem = describePaymentError(new UnsupportedProviderMethodError(new Error("not supported")), context);
      expect(problem.title).toBe("Your wallet cannot make this payment");
      expect(problem.message).not.toMatch(/Provider/);
    });
  });
});
