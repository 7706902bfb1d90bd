// An injected EIP-1193 wallet for Playwright: window.ethereum plus an EIP-6963 announcement, backed by a
// viem account in the test process, so the dashboard's real wagmi + SIWE code runs unchanged. Given a chain
// (e.g. tests/support/chain.ts's ganache), it also switches to it and signs and sends transactions there.
import type { Page } from "@playwright/test";
import {
  BaseError,
  createWalletClient,
  defineChain,
  hexToBigInt,
  hexToNumber,
  http,
  isHex,
  numberToHex,
  type Address,
  type Hex,
} from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";

export const testWalletName = "E2E Test Wallet";

export interface TestWallet {
  address: Hex;
  /** The next signature requests are refused as a person clicking "Reject" would (EIP-1193 code 4001). */
  rejectSignatures(reject: boolean): void;
  /** The next eth_sendTransaction requests are refused as a person clicking "Reject" would (code 4001). */
  rejectTransactions(reject: boolean): void;
  /** The next network switches are refused as a person clicking "Cancel" would (code 4001). */
  rejectSwitches(reject: boolean): void;
  /** The chain the wallet is on now (1 until the page switches to the configured chain). */
  chainId(): number;
}

export interface TestWalletOptions {
  /** A chain the wallet knows besides mainnet (which it can only name): it reads and sends through `rpcUrl`. */
  chain?: { rpcUrl: string; chainId: number };
}

type SignOutcome = { signature: Hex } | { rejected: true };

/** What the page's provider gets back for a chain request: an EIP-1193 result or error, and the event to emit. */
type ChainOutcome =
  { result: unknown; chainChanged?: Hex } | { error: { code: number; message: string; data?: unknown } };

// Answered by the chain's node, as a real wallet answers them from its RPC provider.
const forwardedReads = [
  "eth_call",
  "eth_estimateGas",
  "eth_getTransactionCount",
  "eth_blockNumber",
  "eth_getTransactionReceipt",
  "eth_getTransactionByHash",
  "eth_gasPrice",
  "eth_maxPriorityFeePerGas",
  "eth_feeHistory",
  "eth_getBlockByNumber",
  "eth_getBalance",
  "eth_getCode",
];
const chainMethods = [
  "eth_chainId",
  "net_version",
  "wallet_switchEthereumChain",
  "wallet_addEthereumChain",
  "eth_sendTransaction",
  ...forwardedReads,
];

class WalletError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

async function rpc(rpcUrl: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as {
    result?: unknown;
    error?: { code: number; message: string; data?: unknown };
  };
  // The node's own error (a revert with its data, a nonce too low) reaches the page unchanged, as through MetaMask.
  if (body.error) throw new WalletError(body.error.code, body.error.message, body.error.data);
  return body.result;
}

function optionalHex(tx: Record<string, unknown>, field: string): Hex | undefined {
  const value = tx[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || !isHex(value))
    throw new WalletError(-32602, `Invalid transaction field ${field}: ${String(value)}`);
  return value;
}

/**
 * The next nonce for `address`. ganache's eth_getTransactionCount(…, "pending") ignores its own pool, and it
 * re-labels a second transaction signed with a pending nonce instead of refusing it, so the pool is asked too
 * (where the node has one).
 */
async function nextNonce(rpcUrl: string, address: Address): Promise<number> {
  const counted = hexToNumber((await rpc(rpcUrl, "eth_getTransactionCount", [address, "pending"])) as Hex);
  const pool = (await rpc(rpcUrl, "txpool_content", []).catch(() => undefined)) as
    Partial<Record<"pending" | "queued", Record<string, Record<string, unknown>>>> | undefined;
  const pooled = [pool?.pending, pool?.queued].flatMap((byAccount) =>
    Object.keys(byAccount?.[address.toLowerCase()] ?? {}),
  );
  return Math.max(counted, ...pooled.map((nonce) => Number(nonce) + 1));
}

/**
 * An error from viem (e.g. a refused gas estimate inside prepareTransactionRequest) as an EIP-1193 error: the
 * node's own code, message and data, found at the bottom of viem's chain of causes (viem's wrappers above it
 * replace the message with a generic one such as "Missing or invalid parameters.").
 */
function toWalletError(error: unknown): WalletError {
  if (error instanceof WalletError) return error;
  let node: { code: number; details?: string; data?: unknown } | undefined;
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const candidate = e as Error & { code?: unknown; details?: string; data?: unknown };
    if (typeof candidate.code === "number")
      node = { code: candidate.code, details: candidate.details, data: candidate.data };
  }
  const message = node?.details || (error instanceof BaseError ? error.shortMessage : String(error));
  return new WalletError(node?.code ?? -32603, message, node?.data);
}

async function sendTransaction(
  account: PrivateKeyAccount,
  chain: { rpcUrl: string; chainId: number },
  tx: Record<string, unknown>,
) {
  const walletClient = createWalletClient({
    account,
    chain: defineChain({
      id: chain.chainId,
      name: `Chain ${chain.chainId}`,
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [chain.rpcUrl] } },
    }),
    transport: http(chain.rpcUrl, { retryCount: 0 }),
    cacheTime: 0,
  });
  const to = optionalHex(tx, "to");
  const data = optionalHex(tx, "data") ?? optionalHex(tx, "input");
  const value = optionalHex(tx, "value");
  const gas = optionalHex(tx, "gas");
  const nonce = optionalHex(tx, "nonce");
  const gasPrice = optionalHex(tx, "gasPrice");
  const maxFeePerGas = optionalHex(tx, "maxFeePerGas");
  const maxPriorityFeePerGas = optionalHex(tx, "maxPriorityFeePerGas");
  const common = {
    to,
    data,
    value: value === undefined ? undefined : hexToBigInt(value),
    gas: gas === undefined ? undefined : hexToBigInt(gas),
    nonce: nonce === undefined ? await nextNonce(chain.rpcUrl, account.address) : hexToNumber(nonce),
  };
  // What the dapp left out (gas, fees) is filled here, as a wallet does before showing its prompt.
  const prepared =
    gasPrice !== undefined && maxFeePerGas === undefined
      ? await walletClient.prepareTransactionRequest({ ...common, gasPrice: hexToBigInt(gasPrice) })
      : await walletClient.prepareTransactionRequest({
          ...common,
          maxFeePerGas: maxFeePerGas === undefined ? undefined : hexToBigInt(maxFeePerGas),
          maxPriorityFeePerGas: maxPriorityFeePerGas === undefined ? undefined : hexToBigInt(maxPriorityFeePerGas),
        });
  const signed = await walletClient.signTransaction(prepared);
  return (await rpc(chain.rpcUrl, "eth_sendRawTransaction", [signed])) as Hex;
}

export async function installTestWallet(
  page: Page,
  privateKey: Hex = generatePrivateKey(),
  options: TestWalletOptions = {},
): Promise<TestWallet> {
  const account = privateKeyToAccount(privateKey);
  let isRejecting = false;
  let isRejectingTransactions = false;
  let isRejectingSwitches = false;
  // In the test process, so it survives reloads and navigations as a real wallet's network choice does.
  let currentChainId = 1;
  const { chain } = options;

  // Must come before the first navigation so the page's script can call it.
  await page.exposeFunction("__testWalletSign", async (data: Hex, from: string): Promise<SignOutcome> => {
    if (from.toLowerCase() !== account.address.toLowerCase())
      throw new Error(`personal_sign for unknown account ${from}`);
    if (isRejecting) return { rejected: true };
    return { signature: await account.signMessage({ message: { raw: data } }) };
  });

  if (chain) {
    const switchTo = (chainIdHex: unknown): ChainOutcome => {
      const requested = typeof chainIdHex === "string" && isHex(chainIdHex) ? hexToNumber(chainIdHex) : NaN;
      if (requested !== 1 && requested !== chain.chainId) {
        // EIP-3326: 4902 tells the dapp to offer wallet_addEthereumChain.
        const message = `Unrecognized chain ID "${String(chainIdHex)}". Try adding the chain using wallet_addEthereumChain first.`;
        return { error: { code: 4902, message } };
      }
      if (requested === currentChainId) return { result: null };
      currentChainId = requested;
      return { result: null, chainChanged: numberToHex(requested) };
    };

    await page.exposeFunction(
      "__testWalletChainRequest",
      async (method: string, params: unknown[]): Promise<ChainOutcome> => {
        try {
          switch (method) {
            case "eth_chainId":
              return { result: numberToHex(currentChainId) };
            case "net_version":
              return { result: String(currentChainId) };
            case "wallet_switchEthereumChain":
              if (isRejectingSwitches) throw new WalletError(4001, "User rejected the request.");
              return switchTo((params[0] as { chainId?: unknown } | undefined)?.chainId);
            case "wallet_addEthereumChain": {
              // Like MetaMask once the person approves: the chain is added and the wallet switches to it (wagmi
              // checks eth_chainId right after and treats "still on the old chain" as a refusal).
              const outcome = switchTo((params[0] as { chainId?: unknown } | undefined)?.chainId);
              if ("error" in outcome) {
                return {
                  error: { code: -32602, message: `The test wallet knows only chains 1 and ${chain.chainId}.` },
                };
              }
              return outcome;
            }
            case "eth_sendTransaction": {
              if (currentChainId !== chain.chainId) {
                throw new WalletError(
                  4901,
                  `The test wallet can send only on chain ${chain.chainId}; it is on chain ${currentChainId}.`,
                );
              }
              const tx = params[0];
              if (typeof tx !== "object" || tx === null)
                throw new WalletError(-32602, "eth_sendTransaction needs a transaction object.");
              const from = (tx as { from?: unknown }).from;
              if (typeof from !== "string" || from.toLowerCase() !== account.address.toLowerCase()) {
                throw new WalletError(4100, `The test wallet holds ${account.address}, not ${String(from)}.`);
              }
              if (isRejectingTransactions) throw new WalletError(4001, "User rejected the request.");
              return { result: await sendTransaction(account, chain, tx as Record<string, unknown>) };
            }
            default:
              if (!forwardedReads.includes(method))
                throw new WalletError(4200, `The test wallet does not support ${method}.`);
              if (currentChainId !== chain.chainId) {
                throw new WalletError(
                  4901,
                  `The test wallet can read only chain ${chain.chainId}; it is on chain ${currentChainId}.`,
                );
              }
              return { result: await rpc(chain.rpcUrl, method, params) };
          }
        } catch (error) {
          const { code, message, data } = toWalletError(error);
          return { error: data === undefined ? { code, message } : { code, message, data } };
        }
      },
    );
  }

  await page.addInitScript(
    ({ address, name, chainMethods }) => {
      type Listener = (...args: unknown[]) => void;
      type Request = { method: string; params?: unknown[] };
      const sign = (window as unknown as { __testWalletSign: (data: string, from: string) => Promise<SignOutcome> })
        .__testWalletSign;
      const chainRequest = (
        window as unknown as { __testWalletChainRequest?: (method: string, params: unknown[]) => Promise<ChainOutcome> }
      ).__testWalletChainRequest;
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

      const emit = (event: string, ...args: unknown[]) =>
        listeners.get(event)?.forEach((listener) => listener(...args));

      const provider = {
        isMetaMask: false,
        async request({ method, params = [] }: Request): Promise<unknown> {
          // With a chain configured, the test process answers these (its current chain, signing, the node).
          if (chainRequest && chainMethods.includes(method)) {
            const outcome = await chainRequest(method, params);
            if ("error" in outcome)
              throw Object.assign(rpcError(outcome.error.code, outcome.error.message), { data: outcome.error.data });
            if (outcome.chainChanged) emit("chainChanged", outcome.chainChanged);
            return outcome.result;
          }
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
              return [
                { parentCapability: "eth_accounts", caveats: [{ type: "restrictReturnedAccounts", value: [address] }] },
              ];
            case "wallet_getPermissions":
              return isGranted()
                ? [
                    {
                      parentCapability: "eth_accounts",
                      caveats: [{ type: "restrictReturnedAccounts", value: [address] }],
                    },
                  ]
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
        window.dispatchEvent(
          new CustomEvent("eip6963:announceProvider", { detail: Object.freeze({ info, provider }) }),
        );
      window.addEventListener("eip6963:requestProvider", announce);
      announce();
    },
    { address: account.address, name: testWalletName, chainMethods: chain ? chainMethods : [] },
  );

  return {
    address: account.address,
    rejectSignatures(reject) {
      isRejecting = reject;
    },
    rejectTransactions(reject) {
      isRejectingTransactions = reject;
    },
    rejectSwitches(reject) {
      isRejectingSwitches = reject;
    },
    chainId: () => currentChainId,
  };
}
