// Turns what the wallet, wagmi and the API throw while paying for credits into a sentence a person can act
// on: rejected in the wallet, wrong network or account, not enough tokens or gas, the chain or the server
// unreachable, the transaction reverted or dropped.
import { ApiError } from "@/components/data/fetch-api";
import type { Problem } from "@/components/dashboard/problem-alert";

export interface PaymentProblem extends Problem {
  message: string;
  /** Whether the money may have left the wallet (then the watcher still finds it: say so, do not ask to pay again). */
  isSent?: boolean;
}

/** The wallet is connected to another address than the one that signed in. */
export class WrongAccountError extends Error {
  override readonly name = "WrongAccountError";
  constructor(
    readonly connected: string,
    readonly signedIn: string,
  ) {
    super(`The wallet is on ${connected}, the session is ${signedIn}.`);
  }
}

/** The error and every cause beneath it, outermost first (what viem's BaseError.walk visits). */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error; current && chain.length < 10; current = (current as { cause?: unknown }).cause)
    chain.push(current);
  return chain;
}

type ErrorLike = { name?: unknown; code?: unknown; message?: unknown; details?: unknown };
const anyCause = (error: unknown, test: (e: ErrorLike) => boolean) =>
  causes(error).some((e) => typeof e === "object" && e !== null && test(e as ErrorLike));
const mentions = (error: unknown, pattern: RegExp) =>
  anyCause(error, (e) => pattern.test(`${String(e.message ?? "")} ${String(e.details ?? "")}`));
const named =
  (...names: string[]) =>
  (e: ErrorLike) =>
    typeof e.name === "string" && names.includes(e.name);

export interface PaymentContext {
  tokenSymbol: string;
  chainName: string;
  chainId: number;
}

/** Which wallet request failed: switching the wallet's network (offered before Pay), or the payment itself. */
export type PaymentStage = "switch" | "pay";

/**
 * A sentence for what went wrong, chosen by the deepest cause that explains it: wallets and viem wrap the real
 * reason (a revert, a refusal) in generic errors — e.g. a token's revert surfaced as "The Provider does not
 * support the requested method" when the wallet then tried a method it lacks — so each kind is looked for in the
 * whole chain of causes, most telling first, and the outer wrapper's message is the last resort.
 */
export function describePaymentError(
  error: unknown,
  context: PaymentContext,
  stage: PaymentStage = "pay",
): PaymentProblem {
  if (error instanceof WrongAccountError) {
    return {
      title: "Another account is selected in your wallet",
      message: `Your wallet is on ${error.connected}, but you signed in as ${error.signedIn}. Switch to that account in your wallet, then press Pay again: a payment counts for the address that sends it.`,
    };
  }
  if (error instanceof ApiError) {
    if (error.code === "UNAVAILABLE" || error.code === "NETWORK_ERROR") {
      return {
        title: "Sent, but not yet recorded",
        message: `Your wallet sent the payment, but the server cannot check the chain right now. Do not pay again: the payment is found on-chain and credited automatically once it is confirmed.`,
        isSent: true,
        code: error.code,
        requestId: error.requestId,
      };
    }
    if (error.code === "INVALID_PAYMENT" && error.details?.reason === "TX_FAILED") {
      return {
        title: "The transaction failed",
        message: "The transaction was reverted on-chain, so nothing was paid. Check your balance and try again.",
        code: error.code,
        requestId: error.requestId,
      };
    }
    return {
      title: "The payment was not accepted",
      message: error.message,
      code: error.code,
      requestId: error.requestId,
      isSent: true,
    };
  }
  if (anyCause(error, (e) => named("UserRejectedRequestError")(e) || e.code === 4001)) {
    return stage === "switch"
      ? {
          title: "Network not switched",
          message: `You declined switching to ${context.chainName}. Nothing was sent; switch your wallet to ${context.chainName} to pay.`,
        }
      : {
          title: "Payment rejected",
          message: "You rejected the request in your wallet. Nothing was sent; press Pay when you are ready.",
        };
  }
  if (
    stage === "switch" ||
    anyCause(
      error,
      (e) =>
        named(
          "SwitchChainError",
          "ChainMismatchError",
          "ConnectorChainMismatchError",
          "ChainNotConfiguredError",
          "ChainDisconnectedError",
        )(e) ||
        e.code === 4902 ||
        e.code === 4901,
    )
  ) {
    return {
      title: "Wrong network",
      message: `Your wallet could not switch to ${context.chainName} (chain ${context.chainId}). Add or select that network in your wallet, then press Pay again.`,
    };
  }
  if (anyCause(error, named("ProviderNotFoundError", "ConnectorNotConnectedError"))) {
    return {
      title: "No wallet connected",
      message: "No browser wallet is connected. Unlock your wallet extension, then press Pay again.",
    };
  }
  if (anyCause(error, named("InsufficientFundsError")) || mentions(error, /insufficient funds/i)) {
    return {
      title: "Not enough for the network fee",
      message: `Your wallet does not hold enough ${context.chainName} currency to pay the transaction fee.`,
    };
  }
  if (
    anyCause(error, (e) => named("ContractFunctionRevertedError", "ExecutionRevertedError")(e) || e.code === 3) ||
    mentions(error, /exceeds balance|insufficient balance|execution reverted|reverted/i)
  ) {
    return {
      title: `Not enough ${context.tokenSymbol}`,
      message: `Your wallet does not hold enough ${context.tokenSymbol} for this amount. Choose a smaller amount or add ${context.tokenSymbol} to your wallet.`,
    };
  }
  if (mentions(error, /fetch failed|failed to fetch|network|timed? ?out|HTTP request failed/i)) {
    return {
      title: "The network does not answer",
      message: `Your wallet could not reach ${context.chainName}. Check its connection and try again.`,
    };
  }
  if (
    anyCause(error, (e) => named("UnsupportedProviderMethodError", "MethodNotSupportedRpcError")(e) || e.code === 4200)
  ) {
    return {
      title: "Your wallet cannot make this payment",
      message: `Your wallet does not offer a step this payment needs. Try another wallet, or send ${context.tokenSymbol} from a wallet that supports ${context.chainName}.`,
    };
  }
  const message =
    (error as { shortMessage?: unknown }).shortMessage ??
    (error instanceof Error ? error.message : "Something went wrong.");
  return { title: "The payment did not go through", message: String(message) };
}

/** A recorded top-up that failed: why, in words. */
export const failureSentences: Record<string, string> = {
  DROPPED: "The transaction was never mined (dropped or replaced). Nothing was paid.",
  TX_FAILED: "The transaction was reverted on-chain. Nothing was paid.",
  NO_PAYMENT: "The transaction transfers none of the token to the treasury.",
  WRONG_SENDER: "The payment was sent from another address.",
  WRONG_CHAIN: "The transaction is on another chain.",
  AMOUNT_OUT_OF_RANGE:
    "The payment is worth more credits than a balance can hold, so nothing was credited. Ask the operator to refund it.",
  UNRECORDABLE: "The server could not record this payment, so nothing was credited yet. Ask the operator to credit it.",
};
