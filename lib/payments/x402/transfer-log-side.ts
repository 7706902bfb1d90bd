// Which side of its AuthorizationUsed log the token emits an authorization's Transfer on, as the server's own
// successful settlements show it (their logs are ours to read: we know the authorization and the transaction).
// X402_TRANSFER_LOG is configured, and a use someone else submitted is judged by it; a side our own settlements
// contradict judges nothing (movedToTreasury leaves the payment settling) and shows in health and metrics.
import type { X402Config } from "@/lib/env";
import { log } from "@/lib/log";
import { processState } from "@/lib/singleton";

export type TransferLogSide = "after" | "before";

/** The side the last own settlement showed (per process: every instance checks its own settlements). */
const seen = processState("x402-transfer-log-side", () => ({
  observed: undefined as TransferLogSide | undefined,
  txHash: undefined as string | undefined,
}));

/** What an own settlement's logs showed: logged when it contradicts the configured side (once per change). */
export function recordTransferLogSide(config: X402Config, observed: TransferLogSide, txHash: string): void {
  const changed = seen.observed !== observed;
  Object.assign(seen, { observed, txHash });
  if (changed && observed !== config.transferLog)
    log.error(
      "X402_TRANSFER_LOG contradicts the token: our own settlement's Transfer log is on the other side of its AuthorizationUsed log; uses someone else submitted are not judged until it is set right",
      { X402_TRANSFER_LOG: config.transferLog, observed, txHash },
    );
}

/**
 * "ok" when the server's own settlements show the configured side, "contradicted" when they show the other,
 * "unchecked" before this process has seen one of its own settlements succeed.
 */
export function transferLogHealth(config: X402Config): "ok" | "contradicted" | "unchecked" {
  if (seen.observed === undefined) return "unchecked";
  return seen.observed === config.transferLog ? "ok" : "contradicted";
}
