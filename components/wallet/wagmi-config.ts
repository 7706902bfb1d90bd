// wagmi for the dashboard: the injected / EIP-6963 wallets. Sign-in needs no RPC (connecting and
// personal_sign are answered by the wallet); paying for credits adds the payments chain, whose transaction
// the wallet itself sends. The one read of that chain here (the wallet's token balance, shown before Pay) goes
// through the wallet too: the server's RPC URL is never sent to a browser, and a chain may have no public one.
import { cookieStorage, createConfig, createStorage, http, injected, unstable_connector, type Transport } from "wagmi";
import { defineChain, type Chain } from "viem";
import { mainnet } from "wagmi/chains";

/** The payments chain as the server describes it (lib/payments/chain-info.ts). */
export interface PaymentChain {
  id: number;
  name: string;
  nativeCurrency: { name: string; symbol: string; decimals: number };
  rpcUrls: string[];
  explorerUrl: string | null;
}

const toChain = (chain: PaymentChain): Chain =>
  defineChain({
    id: chain.id,
    name: chain.name,
    nativeCurrency: chain.nativeCurrency,
    rpcUrls: { default: { http: chain.rpcUrls } },
    ...(chain.explorerUrl ? { blockExplorers: { default: { name: "Explorer", url: chain.explorerUrl } } } : {}),
  });

export function createWagmiConfig(paymentChain?: PaymentChain) {
  const extra = paymentChain && paymentChain.id !== mainnet.id ? [toChain(paymentChain)] : [];
  const chains = [mainnet, ...extra] as [Chain, ...Chain[]];
  return createConfig({
    chains,
    connectors: [injected()],
    ssr: true,
    storage: createStorage({ storage: cookieStorage }),
    // The connector transport refuses a read while the wallet is on another chain (ChainDisconnectedError), so a
    // balance is never read from the wrong network.
    transports: Object.fromEntries(
      chains.map((chain) => [chain.id, chain.id === paymentChain?.id ? unstable_connector(injected) : http()]),
    ) as Record<number, Transport>,
  });
}

export const wagmiConfig = createWagmiConfig();
