"use client";

// "Add credits": an amount in credits, its price in the token, and Pay — the wallet (switched to the
// payments chain if needed) sends the token to the treasury; the server records the transaction and the
// dialog follows it: waiting for the wallet → submitted → confirming (n of N) → credited. Before Pay it shows
// what would otherwise fail in the wallet: a wallet on another network (named, with the switch offered) and
// the wallet's token balance (Pay stops above it).
import * as React from "react";
import { useRouter } from "next/navigation";
import { encodeFunctionData, erc20Abi, type Hex } from "viem";
import {
  useChains,
  useConnect,
  useConnection,
  useConnectors,
  useReadContract,
  useSendTransaction,
  useSwitchChain,
} from "wagmi";
import { CheckCircle2Icon, CircleIcon, Loader2Icon, PlusIcon } from "lucide-react";
import { creditsForTokenAmount, formatTokenAmount, tokenAmountForCredits } from "@/lib/contract/top-up-arithmetic";
import { useSubmitTopUp, useTopUp } from "@/components/data/credits";
import { rememberSentPayment } from "@/components/data/sent-payments";
import type { TopUpConfig } from "@/components/data/types";
import { formatCredits, formatNumber, shortAddress } from "@/components/dashboard/format";
import { ProblemAlert } from "@/components/dashboard/problem-alert";
import { preferredConnector } from "@/components/wallet/connectors";
import type { PaymentChain } from "@/components/wallet/wagmi-config";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
  DialogTrigger,
} from "@/components/ui/dialog";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { describePaymentError, failureSentences, WrongAccountError, type PaymentProblem } from "./payment-errors";
import { TxHash } from "./tx-hash";

export type EnabledTopUps = Extract<TopUpConfig, { enabled: true }>;

const presets = [100, 500, 1_000, 5_000];
const maxCredits = 10_000_000;

type Phase =
  | { step: "choose" }
  | { step: "wallet" }
  | { step: "recording"; txHash: Hex }
  | { step: "following"; txHash: Hex; topUpId: string };

export function transactionUrl(explorerUrl: string | null, txHash: string): string | null {
  return explorerUrl ? `${explorerUrl.replace(/\/+$/, "")}/tx/${txHash}` : null;
}

export function AddCreditsDialog({
  config,
  chain,
  sessionAddress,
  defaultOpen = false,
}: {
  config: EnabledTopUps;
  chain: PaymentChain;
  sessionAddress: string;
  defaultOpen?: boolean;
}) {
  const [open, setOpen] = React.useState(defaultOpen);
  const [amountText, setAmountText] = React.useState("500");
  const [phase, setPhase] = React.useState<Phase>({ step: "choose" });
  const [problem, setProblem] = React.useState<PaymentProblem | null>(null);
  const connection = useConnection();
  const connectors = useConnectors();
  const connect = useConnect();
  const switchChain = useSwitchChain();
  const sendTransaction = useSendTransaction();
  const submitTopUp = useSubmitTopUp();
  const followed = useTopUp(phase.step === "following" ? phase.topUpId : undefined);
  const router = useRouter();
  const chains = useChains();

  const isConnected = connection.status === "connected";
  const isOnPaymentChain = isConnected && connection.chainId === config.chainId;
  const walletChainName = chains.find((c) => c.id === connection.chainId)?.name ?? `chain ${connection.chainId}`;
  // Read through the wallet (see wagmi-config.ts), so only once it is on the payments chain.
  const walletBalance = useReadContract({
    address: config.tokenAddress as Hex,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [sessionAddress as Hex],
    chainId: config.chainId,
    query: { enabled: open && isOnPaymentChain },
  });
  const tokenBalance = isOnPaymentChain ? walletBalance.data : undefined;

  const credits = /^\d{1,8}$/.test(amountText.trim()) ? Number(amountText.trim()) : NaN;
  const isAmountValid = Number.isSafeInteger(credits) && credits >= 1 && credits <= maxCredits;
  const perToken = BigInt(config.creditsPerToken);
  const tokenAmount = isAmountValid ? tokenAmountForCredits(BigInt(credits), perToken, config.tokenDecimals) : 0n;
  const creditsBought = isAmountValid ? creditsForTokenAmount(tokenAmount, perToken, config.tokenDecimals) : 0n;
  const context = { tokenSymbol: config.tokenSymbol, chainName: chain.name, chainId: config.chainId };
  const isAboveBalance = tokenBalance !== undefined && isAmountValid && tokenAmount > tokenBalance;
  const topUp = followed.data;
  const isCredited = topUp?.status === "credited";
  const busy =
    phase.step === "wallet" ||
    phase.step === "recording" ||
    (phase.step === "following" && !isCredited && topUp?.status !== "failed");

  // The balance and the history are rendered on the server: refresh them when the credit lands.
  const refetchBalance = walletBalance.refetch;
  React.useEffect(() => {
    if (!isCredited) return;
    router.refresh();
    void refetchBalance();
  }, [isCredited, router, refetchBalance]);

  // The balance and the network are shown before Pay, so the wallet is connected when the dialog opens (a wallet
  // that already granted this site answers without a prompt); once per opening, so a refusal is not repeated.
  const triedConnect = React.useRef(false);
  React.useEffect(() => {
    if (!open) {
      triedConnect.current = false;
      return;
    }
    if (connection.status !== "disconnected" || triedConnect.current) return;
    triedConnect.current = true;
    connect.mutate({ connector: preferredConnector(connectors) });
  }, [open, connection.status, connect, connectors]);

  async function switchNetwork() {
    setProblem(null);
    try {
      await switchChain.mutateAsync({ chainId: config.chainId, connector: connection.connector });
    } catch (error) {
      setProblem(describePaymentError(error, context, "switch"));
    }
  }

  async function pay() {
    setProblem(null);
    setPhase({ step: "wallet" });
    let txHash: Hex | undefined;
    try {
      let account = connection.address;
      let connector = connection.connector;
      if (connection.status !== "connected" || !account || !connector) {
        const chosen = preferredConnector(connectors);
        const result = await connect.mutateAsync({ connector: chosen });
        account = result.accounts[0];
        connector = chosen;
      }
      if (account.toLowerCase() !== sessionAddress.toLowerCase()) throw new WrongAccountError(account, sessionAddress);
      if ((await connector.getChainId()) !== config.chainId)
        await switchChain.mutateAsync({ chainId: config.chainId, connector });
      txHash = await sendTransaction.mutateAsync({
        account,
        connector,
        chainId: config.chainId,
        to: config.tokenAddress as Hex,
        data: encodeFunctionData({
          abi: erc20Abi,
          functionName: "transfer",
          args: [config.treasuryAddress as Hex, tokenAmount],
        }),
      });
      rememberSentPayment({ chainId: config.chainId, txHash });
      setPhase({ step: "recording", txHash });
      const recorded = await submitTopUp.mutateAsync({ chainId: config.chainId, txHash });
      setPhase({ step: "following", txHash, topUpId: recorded.topUpId });
    } catch (error) {
      setProblem(describePaymentError(error, context));
      setPhase(txHash ? { step: "recording", txHash } : { step: "choose" });
    }
  }

  function openChange(next: boolean) {
    setOpen(next);
    if (!next && !busy) {
      // A payment in flight keeps being followed in the Top-ups table; the dialog starts over next time.
      setPhase({ step: "choose" });
      setProblem(null);
    }
  }

  const txHash = phase.step === "recording" || phase.step === "following" ? phase.txHash : undefined;
  const explorerLink = txHash ? transactionUrl(config.explorerUrl, txHash) : null;

  return (
    <Dialog open={open} onOpenChange={openChange}>
      <DialogTrigger asChild>
        <Button>
          <PlusIcon /> Add credits
        </Button>
      </DialogTrigger>
      <DialogContent className="sm:max-w-md">
        <DialogHeader>
          <DialogTitle>Add credits</DialogTitle>
          <DialogDescription>
            Pay {config.tokenSymbol} on {chain.name} from {shortAddress(sessionAddress)}. 1 {config.tokenSymbol} buys{" "}
            {formatCredits(config.creditsPerToken)}; they are added after {config.confirmations}{" "}
            {config.confirmations === 1 ? "confirmation" : "confirmations"}.
          </DialogDescription>
        </DialogHeader>

        {phase.step === "choose" || phase.step === "wallet" ? (
          <div className="grid gap-4">
            {isConnected && !isOnPaymentChain && (
              <div
                role="status"
                className="grid gap-2 rounded-md border border-warning/50 bg-warning/10 p-3 text-sm"
                data-testid="wallet-network"
              >
                <p>
                  Your wallet is on <strong>{walletChainName}</strong>. Payments are made on{" "}
                  <strong>{chain.name}</strong>.
                </p>
                <Button
                  size="sm"
                  variant="outline"
                  className="justify-self-start"
                  onClick={switchNetwork}
                  disabled={busy || switchChain.isPending}
                >
                  {switchChain.isPending && <Loader2Icon className="animate-spin" />}
                  Switch to {chain.name}
                </Button>
              </div>
            )}
            {tokenBalance !== undefined && (
              <p className="text-sm text-muted-foreground" data-testid="wallet-token-balance">
                Your wallet holds{" "}
                <strong className="text-foreground tabular-nums">
                  {formatTokenAmount(tokenBalance, config.tokenDecimals)} {config.tokenSymbol}
                </strong>
                .
              </p>
            )}
            <div className="flex flex-wrap gap-2" role="group" aria-label="Presets">
              {presets.map((preset) => (
                <Button
                  key={preset}
                  type="button"
                  size="sm"
                  variant={credits === preset ? "default" : "outline"}
                  aria-pressed={credits === preset}
                  disabled={busy}
                  onClick={() => setAmountText(String(preset))}
                >
                  {formatNumber(preset)}
                </Button>
              ))}
            </div>
            <div className="grid gap-2">
              <Label htmlFor="top-up-amount">Amount</Label>
              <div className="flex items-center gap-2">
                <Input
                  id="top-up-amount"
                  inputMode="numeric"
                  autoComplete="off"
                  value={amountText}
                  disabled={busy}
                  aria-invalid={!isAmountValid || isAboveBalance}
                  aria-describedby={isAboveBalance ? "top-up-quote top-up-above-balance" : "top-up-quote"}
                  onChange={(event) => setAmountText(event.target.value)}
                />
                <span className="text-sm text-muted-foreground">credits</span>
              </div>
              <p id="top-up-quote" className="text-sm text-muted-foreground" aria-live="polite">
                {isAmountValid ? (
                  <>
                    You pay{" "}
                    <strong className="text-foreground tabular-nums">
                      {formatTokenAmount(tokenAmount, config.tokenDecimals)} {config.tokenSymbol}
                    </strong>{" "}
                    for{" "}
                    <strong className="text-foreground tabular-nums">
                      {formatNumber(Number(creditsBought))} credits
                    </strong>
                    .
                  </>
                ) : (
                  `Enter a whole number of credits from 1 to ${formatNumber(maxCredits)}.`
                )}
              </p>
              {isAboveBalance && tokenBalance !== undefined && (
                <p id="top-up-above-balance" role="alert" className="text-sm text-destructive">
                  {`That is more than your wallet holds (${formatTokenAmount(tokenBalance, config.tokenDecimals)} ${config.tokenSymbol}). Choose a smaller amount or add ${config.tokenSymbol} to your wallet.`}
                </p>
              )}
            </div>
          </div>
        ) : (
          <PaymentProgress phase={phase} topUp={topUp} explorerLink={explorerLink} tokenSymbol={config.tokenSymbol} />
        )}

        {problem && <ProblemAlert problem={problem} variant={problem.isSent ? "warning" : "destructive"} />}
        {topUp?.status === "failed" && (
          <ProblemAlert
            problem={{
              title: "The top-up failed",
              message: failureSentences[topUp.failureReason ?? ""] ?? "The payment could not be credited.",
            }}
          />
        )}

        <DialogFooter>
          {phase.step === "choose" || phase.step === "wallet" ? (
            <Button
              onClick={pay}
              disabled={!isAmountValid || busy || isAboveBalance || (isConnected && !isOnPaymentChain)}
            >
              {phase.step === "wallet" && <Loader2Icon className="animate-spin" />}
              Pay
            </Button>
          ) : (
            <Button variant={isCredited ? "default" : "outline"} onClick={() => openChange(false)}>
              {isCredited ? "Done" : "Close (keeps following it below)"}
            </Button>
          )}
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

function PaymentProgress({
  phase,
  topUp,
  explorerLink,
  tokenSymbol,
}: {
  phase: Extract<Phase, { txHash: Hex }>;
  topUp: ReturnType<typeof useTopUp>["data"];
  explorerLink: string | null;
  tokenSymbol: string;
}) {
  const isMined = topUp?.status === "confirming" || topUp?.status === "credited";
  const steps = [
    { label: "Sent from your wallet", done: true },
    { label: "Recorded by the server", done: phase.step === "following" },
    {
      label:
        topUp && isMined
          ? `Confirming: ${Math.min(topUp.confirmations, topUp.requiredConfirmations)} of ${topUp.requiredConfirmations}`
          : "Waiting to be mined",
      done: topUp?.status === "credited",
    },
    {
      label: topUp?.status === "credited" ? `Credited: +${formatCredits(topUp.credits)}` : "Credited",
      done: topUp?.status === "credited",
    },
  ];
  return (
    <div className="grid gap-3">
      <ol className="grid gap-2" aria-label="Payment progress">
        {steps.map((step, index) => {
          const isCurrent = !step.done && steps.slice(0, index).every((s) => s.done);
          return (
            <li
              key={step.label}
              data-state={step.done ? "done" : isCurrent ? "current" : "waiting"}
              aria-current={isCurrent ? "step" : undefined}
              className={cn("flex items-center gap-2 text-sm", !step.done && !isCurrent && "text-muted-foreground")}
            >
              {step.done ? (
                <CheckCircle2Icon className="size-4 text-success" />
              ) : isCurrent && topUp?.status !== "failed" ? (
                <Loader2Icon className="size-4 animate-spin" />
              ) : (
                <CircleIcon className="size-4" />
              )}
              {step.label}
              {step.done && <span className="sr-only"> (done)</span>}
            </li>
          );
        })}
      </ol>
      <p className="grid gap-1 text-xs text-muted-foreground">
        <span>Transaction</span>
        <TxHash hash={phase.txHash} href={explorerLink} className="text-foreground" />
        {topUp && topUp.tokenAmount !== "0" && (
          <span>{`Paid in ${tokenSymbol}; the server read the amount from the chain.`}</span>
        )}
      </p>
    </div>
  );
}
