// What a browser wallet needs to switch to the payments chain (wallet_switchEthereumChain, or
// wallet_addEthereumChain when it does not know it yet): its name, currency and public RPC, from viem's
// list of chains. The server's own PAYMENTS_RPC_URL is never sent to a browser (it may carry a key).
import * as chains from "viem/chains";

export interface WalletChain {
  id: number;
  name: string;
  nativeCurrency: { name: string; symbol: string; decimals: number };
  /** Public RPC URLs a wallet may add; empty for a chain viem does not know. */
  rpcUrls: string[];
  explorerUrl: string | null;
}

export function walletChainOf(chainId: number, explorerUrl?: string): WalletChain {
  const known = Object.values(chains).find(
    (chain) => typeof chain === "object" && "id" in chain && chain.id === chainId,
  );
  return {
    id: chainId,
    name: known?.name ?? `Chain ${chainId}`,
    nativeCurrency: known?.nativeCurrency ?? { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: known ? [...known.rpcUrls.default.http] : [],
    explorerUrl: explorerUrl ?? null,
  };
}
