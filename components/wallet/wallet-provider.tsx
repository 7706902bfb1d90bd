"use client";

import * as React from "react";
import { WagmiProvider } from "wagmi";
import { createWagmiConfig, wagmiConfig, type PaymentChain } from "./wagmi-config";

/** wagmi for its children; with `paymentChain`, the wallet may also be switched to that chain to pay. */
export function WalletProvider({ children, paymentChain }: { children: React.ReactNode; paymentChain?: PaymentChain }) {
  const [config] = React.useState(() => (paymentChain ? createWagmiConfig(paymentChain) : wagmiConfig));
  return <WagmiProvider config={config}>{children}</WagmiProvider>;
}
