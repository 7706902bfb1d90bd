// WalletConnect on sign-in: offered only with a project id, through the configured relay, which the page's CSP
// lets it reach; what the SDK throws when a QR code expires or the relay is out of reach reads as one sentence.
import { describe, expect, it } from "vitest";
import { PROPOSAL_EXPIRY_MESSAGE } from "@walletconnect/sign-client";
import { UserRejectedRequestError } from "viem";
import { parseEnv, walletConnectSettings } from "@/lib/env";
import { describeSignInError } from "@/components/wallet/wallet-errors";

describe("configuration", () => {
  it("offers no WalletConnect without a project id (an empty value counts as unset)", () => {
    expect(walletConnectSettings(parseEnv({}))).toBeUndefined();
    expect(walletConnectSettings(parseEnv({ NEXT_PUBLIC_WALLETCONNECT_PROJECT_ID: "" }))).toBeUndefined();
  });

  it("uses WalletConnect's own relay unless a relay URL is given", () => {
    expect(walletConnectSettings(parseEnv({ NEXT_PUBLIC_WALLETCONNECT_PROJECT_ID: "abc" }))).toEqual({
      projectId: "abc",
    });
    const env = parseEnv({
      NEXT_PUBLIC_WALLETCONNECT_PROJECT_ID: "abc",
      NEXT_PUBLIC_WALLETCONNECT_RELAY_URL: "ws://127.0.0.1:8547",
    });
    expect(walletConnectSettings(env)).toEqual({ projectId: "abc", relayUrl: "ws://127.0.0.1:8547" });
  });

  it("refuses a relay URL that is not a WebSocket URL", () => {
    expect(() =>
      parseEnv({
        NEXT_PUBLIC_WALLETCONNECT_PROJECT_ID: "abc",
        NEXT_PUBLIC_WALLETCONNECT_RELAY_URL: "https://relay.example",
      }),
    ).toThrow(/NEXT_PUBLIC_WALLETCONNECT_RELAY_URL/);
  });
});

describe("WalletConnect errors, in a sentence", () => {
  it("says the QR code expired when the proposal did (the SDK rejects with a plain object)", () => {
    const problem = describeSignInError({ message: PROPOSAL_EXPIRY_MESSAGE, code: 0 });
    expect(problem).toMatchObject({ code: "WALLETCONNECT_EXPIRED", title: "The QR code expired" });
  });

  it.each([
    "Couldn't establish socket connection to the relay server: ws://127.0.0.1:1",
    "Failed to publish custom payload, please try again. id:1795608430673336320 tag:undefined",
    "Socket stalled when trying to connect to wss://relay.walletconnect.org",
  ])("says the relay is unreachable for %s", (message) => {
    expect(describeSignInError(new Error(message))).toMatchObject({ code: "WALLETCONNECT_UNREACHABLE" });
  });

  it("treats a session rejected in the phone wallet as any rejected request", () => {
    // What wagmi's WalletConnect connector turns the wallet's "User rejected." (5000) into.
    const error = new UserRejectedRequestError(new Error("User rejected."));
    expect(describeSignInError(error)).toMatchObject({ code: "USER_REJECTED", title: "Request rejected" });
  });
});
