// WalletConnect for sign-in: a phone wallet scans a QR code of ours and answers through a relay. The connector
// is created only when the visitor chooses WalletConnect, so no other page (and no visitor who uses a browser
// wallet) opens a connection to the relay.
import * as React from "react";
import { useConfig, type Connector, type CreateConnectorFn } from "wagmi";
import { walletConnect } from "wagmi/connectors";

export interface WalletConnectSettings {
  projectId: string;
  /** A self-hosted relay; undefined means WalletConnect's own. */
  relayUrl?: string;
}

/** What the WalletConnect provider exposes of its core that this file touches. */
interface ProviderCore {
  signer?: { client?: { core?: { verify?: { register: (params: unknown) => Promise<string | undefined> } } } };
}

/**
 * The wagmi connector for WalletConnect, with our own QR dialog instead of WalletConnect's hosted modal (which
 * downloads its assets and wallet list at run time), and no telemetry. `onDisplayUri` receives the pairing URI
 * the QR code shows.
 */
export function walletConnectConnector(
  settings: WalletConnectSettings,
  onDisplayUri: (uri: string) => void,
): CreateConnectorFn {
  const create = walletConnect({
    projectId: settings.projectId,
    ...(settings.relayUrl ? { relayUrl: settings.relayUrl } : {}),
    showQrModal: false,
    telemetryEnabled: false,
    metadata: {
      name: "Execution Network",
      description: "Sign in to Execution Network",
      url: window.location.origin,
      icons: [],
    },
  });
  return (config) => {
    config.emitter.on("message", ({ type, data }) => {
      if (type === "display_uri" && typeof data === "string") onDisplayUri(data);
    });
    const connector = create(config);
    if (!settings.relayUrl) return connector;
    const getProvider = connector.getProvider.bind(connector);
    return {
      ...connector,
      async getProvider(parameters) {
        const provider = await getProvider(parameters);
        skipHostedVerify(provider as ProviderCore);
        return provider;
      },
    };
  };
}

/**
 * With a self-hosted relay, WalletConnect's hosted Verify service (an iframe from its servers, which attests
 * this origin to the wallet) is not part of the deployment: the SDK has no option to turn it off, so the
 * attestation is left empty, which wallets treat as "unknown domain" (it is what they get when Verify is down).
 */
function skipHostedVerify(provider: ProviderCore) {
  const verify = provider.signer?.client?.core?.verify;
  if (verify) verify.register = async () => "";
}

/**
 * The WalletConnect connector of this page, created on first use and kept: a second one would start
 * WalletConnect's core a second time (it is global), and both would answer the relay's messages. `onDisplayUri`
 * is the latest callback given, so each attempt hears its own pairing URI.
 */
export function useWalletConnectConnector(settings: WalletConnectSettings | undefined) {
  const config = useConfig();
  const connector = React.useRef<Connector | undefined>(undefined);
  const listener = React.useRef<(uri: string) => void>(() => {});
  return React.useCallback(
    (onDisplayUri: (uri: string) => void): Connector => {
      if (!settings) throw new Error("WalletConnect is not configured.");
      listener.current = onDisplayUri;
      // What wagmi's connect does with a connector function, once: its connectors are set up through the config.
      connector.current ??= config._internal.connectors.setup(
        walletConnectConnector(settings, (uri) => listener.current(uri)),
      );
      return connector.current;
    },
    [config, settings],
  );
}

/** No pairing URI from the relay within this long: it is out of reach (the SDK itself retries for over a minute). */
export const relayTimeoutMs = 15_000;

export class RelayUnreachableError extends Error {
  override name = "RelayUnreachableError";
  constructor() {
    super("Couldn't reach the WalletConnect relay server in time.");
  }
}
