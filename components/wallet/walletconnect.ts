// WalletConnect for sign-in: a phone wallet scans a QR code of ours and answers through a relay. The connector
// is created only when the visitor chooses WalletConnect, so no other page (and no visitor who uses a browser
// wallet) opens a connection to the relay.
import type { CreateConnectorFn } from "wagmi";
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
