"use client";

import * as React from "react";
import { WagmiProvider } from "wagmi";
import { wagmiConfig } from "./wagmi-config";

export function WalletProvider({ children }: { children: React.ReactNode }) {
  return <WagmiProvider config={wagmiConfig}>{children}</WagmiProvider>;
}
