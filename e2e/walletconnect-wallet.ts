// A phone wallet for the journeys: WalletConnect's own Sign client (what mobile wallets build on) in the test
// process, holding a viem account. It pairs from the URI the page's QR code shows, approves (or rejects) the
// session, and answers personal_sign, eth_accounts and eth_chainId as a wallet app would.
import { SignClient } from "@walletconnect/sign-client";
import { numberToHex, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

export interface PhoneWallet {
  address: Hex;
  /** Scans the QR code: pairs with the page through the relay. */
  pair(uri: string): Promise<void>;
  /** The session proposal is refused as a person tapping "Reject" would. */
  rejectSessions(reject: boolean): void;
  /** Methods the page asked the wallet for, in order. */
  requests: string[];
  close(): Promise<void>;
}

const chainId = 1;
const userRejected = { code: 5000, message: "User rejected." };

export async function startPhoneWallet(relayUrl: string, projectId: string): Promise<PhoneWallet> {
  const account = privateKeyToAccount(generatePrivateKey());
  const requests: string[] = [];
  let rejecting = false;
  const client = await SignClient.init({
    projectId,
    relayUrl,
    // No usage events to WalletConnect's servers.
    telemetryEnabled: false,
    // Nothing of this wallet outlives the test.
    storageOptions: { database: ":memory:" },
    customStoragePrefix: `e2e-wallet-${account.address}`,
    logger: "error",
    metadata: {
      name: "E2E Phone Wallet",
      description: "The journeys' phone wallet",
      url: "https://wallet.invalid",
      icons: [],
    },
  });

  client.on("session_proposal", async ({ id, params }) => {
    if (rejecting) {
      await client.reject({ id, reason: userRejected });
      return;
    }
    const proposed = { ...params.optionalNamespaces?.eip155, ...params.requiredNamespaces?.eip155 };
    const chains = [`eip155:${chainId}`];
    await client.approve({
      id,
      namespaces: {
        eip155: {
          chains,
          accounts: chains.map((chain) => `${chain}:${account.address}`),
          methods: ["personal_sign", "eth_accounts", "eth_chainId"].filter(
            (method) => !proposed.methods || proposed.methods.includes(method),
          ),
          events: ["accountsChanged", "chainChanged"],
        },
      },
    });
  });

  client.on("session_request", async ({ id, topic, params }) => {
    const { method, params: args } = params.request as { method: string; params: unknown[] };
    requests.push(method);
    const respond = (body: { result: unknown } | { error: { code: number; message: string } }) =>
      client.respond({ topic, response: { id, jsonrpc: "2.0", ...body } });
    switch (method) {
      case "personal_sign": {
        const [data, from] = args as [Hex, string];
        if (from.toLowerCase() !== account.address.toLowerCase())
          return respond({ error: { code: 4100, message: `Unknown account ${from}` } });
        return respond({ result: await account.signMessage({ message: { raw: data } }) });
      }
      case "eth_accounts":
        return respond({ result: [account.address] });
      case "eth_chainId":
        return respond({ result: numberToHex(chainId) });
      default:
        return respond({ error: { code: 4200, message: `The phone wallet does not support ${method}.` } });
    }
  });

  return {
    address: account.address,
    requests,
    async pair(uri) {
      await client.core.pairing.pair({ uri });
    },
    rejectSessions(reject) {
      rejecting = reject;
    },
    async close() {
      await client.core.relayer.transportClose().catch(() => {});
    },
  };
}
