// Which wallet to ask when the page must connect one itself (paying for credits after a reload): an
// EIP-6963 wallet announced by name, else the generic injected provider.
import type { Connector } from "wagmi";

export function preferredConnector(connectors: readonly Connector[]): Connector {
  const announced = connectors.find((c) => c.id !== "injected");
  const chosen = announced ?? connectors[0];
  if (!chosen) throw Object.assign(new Error("No browser wallet was found."), { name: "ProviderNotFoundError" });
  return chosen;
}
