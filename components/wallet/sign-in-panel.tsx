"use client";

import * as React from "react";
import { useRouter } from "next/navigation";
import { useConnect, useConnection, useConnectors, useDisconnect, useSignMessage, type Connector } from "wagmi";
import type { Address } from "viem";
import { createSiweMessage } from "viem/siwe";
import { Loader2Icon, QrCodeIcon, WalletIcon } from "lucide-react";
import { requestSignInNonce, verifySignIn } from "@/components/data/session";
import { Button } from "@/components/ui/button";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";
import { shortAddress } from "@/components/dashboard/format";
import { ProblemAlert } from "@/components/dashboard/problem-alert";
import { describeSignInError, type SignInProblem } from "./wallet-errors";
import {
  RelayUnreachableError,
  relayTimeoutMs,
  useWalletConnectConnector,
  type WalletConnectSettings,
} from "./walletconnect";
import { WalletConnectDialog } from "./walletconnect-dialog";

type Step = "idle" | "connecting" | "nonce" | "signing" | "verifying" | "done";

const stepLabel: Record<Step, string> = {
  idle: "",
  connecting: "Waiting for your wallet to connect…",
  nonce: "Preparing the sign-in message…",
  signing: "Confirm the signature request in your wallet…",
  verifying: "Verifying your signature…",
  done: "Signed in. Opening your dashboard…",
};

const messageLifetimeMs = 10 * 60 * 1000;

const subscribeNothing = () => () => {};
/** Whether this browser has a wallet (an injected provider); assumed on the server, checked in the browser. */
const useHasBrowserWallet = () =>
  React.useSyncExternalStore(
    subscribeNothing,
    () => "ethereum" in window,
    () => true,
  );

/** For a visitor without a browser wallet: what to install, or where to open this page instead. */
function NoWalletHelp({ hasWalletConnect }: { hasWalletConnect: boolean }) {
  const wallet = (name: string, href: string) => (
    <a
      href={href}
      target="_blank"
      rel="noreferrer"
      className="font-medium text-foreground underline underline-offset-4"
    >
      {name}
    </a>
  );
  return (
    <Alert>
      <WalletIcon />
      <AlertTitle>No wallet in this browser</AlertTitle>
      <AlertDescription>
        <p>
          Signing in takes an Ethereum wallet: it signs one message to prove the address is yours (no transaction, no
          gas). Install a browser extension such as {wallet("MetaMask", "https://metamask.io/download/")},{" "}
          {wallet("Rabby", "https://rabby.io/")} or{" "}
          {wallet("Coinbase Wallet", "https://www.coinbase.com/wallet/downloads")}, create an account in it, then reload
          this page.
        </p>
        {hasWalletConnect ? (
          <p>
            With a wallet app on your phone, choose WalletConnect and scan the code; on a phone, you can also open this
            page in your wallet app&apos;s built-in browser.
          </p>
        ) : (
          <p>On a phone, open this page in your wallet app&apos;s built-in browser.</p>
        )}
      </AlertDescription>
    </Alert>
  );
}

/** Wallets announced through EIP-6963 make the generic "injected" entry redundant. */
function visibleConnectors(connectors: readonly Connector[]): Connector[] {
  const announced = connectors.filter((c) => c.id !== "injected");
  return announced.length > 0 ? announced : [...connectors];
}

/** `walletConnect`: offer WalletConnect (a QR code for a phone wallet) through this project id and relay. */
export function SignInPanel({
  walletConnect,
  returnTo = "/overview",
}: {
  walletConnect?: WalletConnectSettings;
  /** Where to go once signed in: a same-origin path the sign-in page validated (safeReturnTo). */
  returnTo?: string;
}) {
  const router = useRouter();
  const connection = useConnection();
  const connectors = useConnectors();
  const connect = useConnect();
  const disconnect = useDisconnect();
  const signMessage = useSignMessage();
  const [step, setStep] = React.useState<Step>("idle");
  const [problem, setProblem] = React.useState<SignInProblem | null>(null);
  const busy = step !== "idle";
  // The WalletConnect attempt in progress: its pairing URI for the QR dialog; a cancelled one is ignored.
  const [pairing, setPairing] = React.useState<{ attempt: number; uri?: string }>();
  const attempts = React.useRef(0);
  const walletConnectConnector = useWalletConnectConnector(walletConnect);

  async function signIn(address: Address, chainId: number, connector?: Connector) {
    setStep("nonce");
    const nonce = await requestSignInNonce();
    const issuedAt = new Date();
    const message = createSiweMessage({
      address,
      chainId,
      domain: window.location.host,
      uri: window.location.origin,
      version: "1",
      nonce,
      statement: "Sign in to Execution Network",
      issuedAt,
      expirationTime: new Date(issuedAt.getTime() + messageLifetimeMs),
    });
    setStep("signing");
    const signature = await signMessage.mutateAsync({ message, account: address, connector });
    setStep("verifying");
    await verifySignIn(message, signature);
    setStep("done");
    router.replace(returnTo);
    router.refresh();
  }

  async function run(action: () => Promise<void>) {
    setProblem(null);
    try {
      await action();
    } catch (error) {
      setProblem(describeSignInError(error));
      setStep("idle");
    }
  }

  const connectAndSignIn = (connector: Connector) =>
    run(async () => {
      setStep("connecting");
      const result = await connect.mutateAsync({ connector });
      await signIn(result.accounts[0], result.chainId, connector);
    });

  const connectWalletConnectAndSignIn = () =>
    run(async () => {
      const attempt = ++attempts.current;
      setPairing({ attempt });
      setStep("connecting");
      let relayTimer: ReturnType<typeof setTimeout> | undefined;
      const relayTimeout = new Promise<never>((_, reject) => {
        relayTimer = setTimeout(() => reject(new RelayUnreachableError()), relayTimeoutMs);
      });
      const showUri = (uri: string) => {
        clearTimeout(relayTimer);
        setPairing((current) => (current?.attempt === attempt ? { attempt, uri } : current));
      };
      try {
        const connecting = connect.mutateAsync({ connector: walletConnectConnector(showUri) });
        // Lost to the timeout, its own failure later is no one's to report.
        connecting.catch(() => {});
        const result = await Promise.race([connecting, relayTimeout]);
        if (attempts.current !== attempt) {
          // Cancelled while the phone was approving: do not sign in behind the visitor's back.
          disconnect.mutate({});
          return;
        }
        setPairing(undefined);
        // The connection is now the current one: the message is signed through the WalletConnect session.
        await signIn(result.accounts[0], result.chainId);
      } catch (error) {
        if (attempts.current !== attempt) return;
        throw error;
      } finally {
        clearTimeout(relayTimer);
        setPairing((current) => (current?.attempt === attempt ? undefined : current));
      }
    });

  const cancelWalletConnect = () => {
    attempts.current += 1;
    setPairing(undefined);
    setStep("idle");
  };

  const continueAs = () =>
    run(async () => {
      if (!connection.address || !connection.connector) return;
      await signIn(connection.address, connection.chainId ?? 1, connection.connector);
    });

  const hasBrowserWallet = useHasBrowserWallet();
  const isConnected = connection.status === "connected" && connection.address && connection.connector;
  const isRestoring = connection.status === "reconnecting" && !busy;

  return (
    <div className="grid gap-4">
      {isRestoring ? (
        <Button disabled variant="outline" className="w-full">
          <Loader2Icon className="animate-spin" /> Looking for your wallet…
        </Button>
      ) : isConnected && step !== "connecting" ? (
        <div className="grid gap-2">
          <Button onClick={continueAs} disabled={busy} className="w-full" size="lg">
            {busy ? <Loader2Icon className="animate-spin" /> : <WalletIcon />}
            Sign in as {shortAddress(connection.address ?? "")}
          </Button>
          <Button
            variant="ghost"
            size="sm"
            disabled={busy}
            onClick={() => {
              setProblem(null);
              disconnect.mutate({});
            }}
          >
            Use a different wallet
          </Button>
        </div>
      ) : (
        <ul className="grid gap-2" aria-label="Wallets">
          {visibleConnectors(connectors).map((connector) => (
            <li key={connector.uid}>
              <Button
                variant="outline"
                size="lg"
                className="w-full justify-start"
                disabled={busy}
                onClick={() => connectAndSignIn(connector)}
              >
                {connector.icon ? (
                  // EIP-6963 icons are data: URLs; next/image adds nothing for them.
                  // eslint-disable-next-line @next/next/no-img-element
                  <img src={connector.icon} alt="" className="size-5 rounded" />
                ) : (
                  <WalletIcon />
                )}
                <span className="flex-1 text-left">
                  {connector.id === "injected" ? "Browser wallet" : connector.name}
                </span>
                {busy && <Loader2Icon className="animate-spin text-muted-foreground" />}
              </Button>
            </li>
          ))}
          {walletConnect && (
            <li>
              <Button
                variant="outline"
                size="lg"
                className="w-full justify-start"
                disabled={busy}
                onClick={connectWalletConnectAndSignIn}
              >
                <QrCodeIcon />
                <span className="flex-1 text-left">WalletConnect</span>
                {busy && <Loader2Icon className="animate-spin text-muted-foreground" />}
              </Button>
            </li>
          )}
        </ul>
      )}

      {!hasBrowserWallet && !busy && <NoWalletHelp hasWalletConnect={Boolean(walletConnect)} />}

      <WalletConnectDialog open={pairing !== undefined} uri={pairing?.uri} onCancel={cancelWalletConnect} />

      <p className="min-h-5 text-center text-sm text-muted-foreground" aria-live="polite">
        {stepLabel[step]}
      </p>

      {problem && <ProblemAlert problem={problem} />}
    </div>
  );
}
