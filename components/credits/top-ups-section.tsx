"use client";

// The Credits page's way to buy credits: Add credits and the Top-ups table when this deployment takes
// payments; otherwise what an operator sets to enable them (and how credits are granted meanwhile).
import { AlertCircleIcon, InfoIcon } from "lucide-react";
import type { TopUpPage } from "@/components/data/types";
import type { PaymentChain } from "@/components/wallet/wagmi-config";
import { WalletProvider } from "@/components/wallet/wallet-provider";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { AddCreditsDialog, type EnabledTopUps } from "./add-credits-dialog";
import { TopUpsTable } from "./top-ups-table";

export type TopUpsAvailability =
  | { state: "enabled"; config: EnabledTopUps; chain: PaymentChain; initial: TopUpPage }
  | { state: "disabled" }
  | { state: "unavailable" };

const enableVariables = [
  "PAYMENTS_RPC_URL",
  "PAYMENTS_CHAIN_ID",
  "PAYMENTS_TOKEN_ADDRESS",
  "PAYMENTS_TREASURY_ADDRESS",
  "CREDITS_PER_TOKEN",
];

export function TopUpsSection({
  availability,
  sessionAddress,
  openAdd,
}: {
  availability: TopUpsAvailability;
  sessionAddress: string;
  openAdd: boolean;
}) {
  if (availability.state === "disabled") {
    return (
      <Alert>
        <InfoIcon />
        <AlertTitle>Top-ups are not enabled on this deployment</AlertTitle>
        <AlertDescription>
          <p>
            Buying credits with your wallet needs an operator to set{" "}
            {enableVariables.map((name, i) => (
              <span key={name}>
                <code className="font-mono text-xs">{name}</code>
                {i < enableVariables.length - 2 ? ", " : i === enableVariables.length - 2 ? " and " : ""}
              </span>
            ))}{" "}
            (see the README). Meanwhile an operator grants credits with{" "}
            <code className="font-mono text-xs">npm run credits -- grant {sessionAddress} 500</code>.
          </p>
        </AlertDescription>
      </Alert>
    );
  }
  if (availability.state === "unavailable") {
    return (
      <Alert variant="warning">
        <AlertCircleIcon />
        <AlertTitle>Top-ups are unavailable right now</AlertTitle>
        <AlertDescription>
          The server cannot reach the payments network. Payments already sent are credited once it answers; try adding
          credits again in a minute.
        </AlertDescription>
      </Alert>
    );
  }
  const { config, chain, initial } = availability;
  return (
    <WalletProvider paymentChain={chain}>
      <Card>
        <CardHeader className="flex flex-row flex-wrap items-start justify-between gap-4">
          <div className="grid gap-1.5">
            <CardTitle>Top-ups</CardTitle>
            <CardDescription>
              Pay {config.tokenSymbol} on {chain.name} from your wallet; the server checks each payment on-chain and
              adds the credits once it is confirmed.
            </CardDescription>
          </div>
          <AddCreditsDialog config={config} chain={chain} sessionAddress={sessionAddress} defaultOpen={openAdd} />
        </CardHeader>
        <CardContent>
          <TopUpsTable config={config} initial={initial} />
        </CardContent>
      </Card>
    </WalletProvider>
  );
}
