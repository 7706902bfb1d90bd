// An injected EIP-1193 wallet for Playwright: window.ethereum plus an EIP-6963 announcement, backed by a
// viem account in the test process, so the dashboard's real wagmi + SIWE code runs unchanged.
import type { Page } from "@playwright/test";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

export const testWalletName = "E2E Test Wallet";

export interface TestWallet {
  address: Hex;
  /** The next signature requests are refused as a person clicking "Reject" would (EIP-1193 code 4001). */
  rejectSignatures(reject: boolean): void;
}

type SignOutcome = { signature: Hex } | { rejected: true };

export async function installTestWallet(page: Page, privateKey: Hex = generatePrivateKey()): Promise<TestWallet> {
  const account = privateKeyToAccount(privateKey);
  let isRejecting = false;

  // Must come before the first navigation so the page's script can call it.
  await page.exposeFunction("__testWalletSign", async (data: Hex, from: string): Promise<SignOutcome> => {
    if (from.toLowerCase() !== account.address.toLowerCase()) throw new Error(`personal_sign for unknown account ${from}`);
    if (isRejecting) return { rejected: true };
    return { signature: await account.signMessage({ message: { raw: data } }) };
  });

  await page.addInitScript(
    ({ address, name }) => {
      type Listener = (...args: unknown[]) => void;
      type Request = { method: string; params?: unknown[] };
      const sign = (window as unknown as { __testWalletSign: (data: string, from: string) => Promise<SignOutcome> })
        .__testWalletSign;
      const listeners = new Map<string, Set<Listener>>();
      const rpcError = (code: number, message: string) => Object.assign(new Error(message), { code });
      // Like a real wallet, accounts are exposed only once the site asked (eth_requestAccounts); the grant is
      // remembered per origin, so reloads and later visits see the wallet as already connected.
      const grantKey = "e2e-test-wallet:granted";
      const storage = (() => {
        try {
          return window.localStorage;
        } catch {
          return null;
        }
      })();
      const isGranted = () => storage?.getItem(grantKey) === "1";

      const provider = {
        isMetaMask: false,
        async request({ method, params = [] }: Request): Promise<unknown> {
          switch (method) {
            case "eth_requestAccounts":
              storage?.setItem(grantKey, "1");
              return [address];
            case "eth_accounts":
              return isGranted() ? [address] : [];
            case "eth_chainId":
              return "0x1";
            case "net_version":
              return "1";
            case "wallet_requestPermissions":
              storage?.setItem(grantKey, "1");
              return [{ parentCapability: "eth_accounts", caveats: [{ type: "restrictReturnedAccounts", value: [address] }] }];
            case "wallet_getPermissions":
              return isGranted()
                ? [{ parentCapability: "eth_accounts", caveats: [{ type: "restrictReturnedAccounts", value: [address] }] }]
                : [];
            case "wallet_revokePermissions":
              storage?.removeItem(grantKey);
              return null;
            case "wallet_switchEthereumChain":
              return null;
            case "personal_sign": {
              const [data, from] = params as [string, string];
              const outcome = await sign(data, from);
              if ("rejected" in outcome) throw rpcError(4001, "User rejected the request.");
              return outcome.signature;
            }
            default:
              throw rpcError(4200, `The test wallet does not support ${method}.`);
          }
        },
        on(event: string, listener: Listener) {
          if (!listeners.has(event)) listeners.set(event, new Set());
          listeners.get(event)?.add(listener);
          return provider;
        },
        removeListener(event: string, listener: Listener) {
          listeners.get(event)?.delete(listener);
          return provider;
        },
      };

      Object.defineProperty(window, "ethereum", { value: provider, configurable: true });

      // EIP-6963: announce now and whenever a dapp asks.
      const info = {
        uuid: "9b0c7f5e-2f4a-4d7e-9d1e-6a3c1e0b7e21",
        name,
        icon: "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 24 24'%3E%3Crect width='24' height='24' rx='6' fill='%236366f1'/%3E%3C/svg%3E",
        rdns: "dev.execution-network.e2e-wallet",
      };
      const announce = () =>
        window.dispatchEvent(new CustomEvent("eip6963:announceProvider", { detail: Object.freeze({ info, provider }) }));
      window.addEventListener("eip6963:requestProvider", announce);
      announce();
    },
    { address: account.address, name: testWalletName },
  );

  return {
    address: account.address,
    rejectSignatures(reject) {
      isRejecting = reject;
    },
  };
}
