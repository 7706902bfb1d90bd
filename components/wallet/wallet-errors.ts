// Turns what wallets, wagmi and the API throw during sign-in into one sentence a person can act on.
import { ApiError } from "@/components/data/fetch-api";

export interface SignInProblem {
  title: string;
  message: string;
  code?: string;
  requestId?: string;
}

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current && chain.length < 10) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

const hasName = (error: unknown, name: string) => causes(error).some((e) => (e as { name?: unknown }).name === name);
const hasCode = (error: unknown, code: number) => causes(error).some((e) => (e as { code?: unknown }).code === code);
const hasMessage = (error: unknown, pattern: RegExp) =>
  causes(error).some((e) => {
    const message = (e as { message?: unknown } | null)?.message;
    return typeof message === "string" && pattern.test(message);
  });

export function describeSignInError(error: unknown): SignInProblem {
  if (error instanceof ApiError) {
    if (error.code === "UNAUTHENTICATED") {
      return {
        title: "The server did not accept the signature",
        message: `${error.message} Try signing in again.`,
        code: error.code,
        requestId: error.requestId,
      };
    }
    return { title: "Sign-in failed", message: error.message, code: error.code, requestId: error.requestId };
  }
  if (hasName(error, "UserRejectedRequestError") || hasCode(error, 4001)) {
    return {
      title: "Request rejected",
      message: "You rejected the request in your wallet. Nothing was signed; try again when you are ready.",
      code: "USER_REJECTED",
    };
  }
  if (hasName(error, "ProviderNotFoundError")) {
    return {
      title: "No wallet found",
      message: "No browser wallet was found. Install or unlock an Ethereum wallet extension, then reload this page.",
      code: "NO_WALLET",
    };
  }
  if (hasMessage(error, /proposal expired|pairing.*expired|expired.*pairing/i)) {
    return {
      title: "The QR code expired",
      message: "The WalletConnect code was not scanned in time. Choose WalletConnect again for a new code.",
      code: "WALLETCONNECT_EXPIRED",
    };
  }
  if (
    hasMessage(error, /relay server|failed to publish|socket stalled|no internet connection|connection interrupted/i)
  ) {
    return {
      title: "WalletConnect is unreachable",
      message:
        "This page could not reach the WalletConnect relay, so no phone wallet can answer. Check your connection and try again, or use a browser wallet.",
      code: "WALLETCONNECT_UNREACHABLE",
    };
  }
  if (hasCode(error, -32002)) {
    return {
      title: "Your wallet is busy",
      message: "Your wallet already has a pending request. Open the wallet, finish or dismiss it, then try again.",
      code: "WALLET_BUSY",
    };
  }
  const message =
    (error as { shortMessage?: unknown }).shortMessage ??
    (error instanceof Error ? error.message : "Something went wrong.");
  return { title: "Sign-in failed", message: String(message) };
}
