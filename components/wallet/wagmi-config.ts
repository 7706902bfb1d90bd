// wagmi for sign-in only: the injected / EIP-6963 wallets on Ethereum mainnet. Nothing here needs an RPC:
// connecting and personal_sign are answered by the wallet itself.
import { cookieStorage, createConfig, createStorage, http, injected } from "wagmi";
import { mainnet } from "wagmi/chains";

export const wagmiConfig = createConfig({
  chains: [mainnet],
  connectors: [injected()],
  ssr: true,
  storage: createStorage({ storage: cookieStorage }),
  transports: { [mainnet.id]: http() },
});

declare module "wagmi" {
  interface Register {
    config: typeof wagmiConfig;
  }
}
