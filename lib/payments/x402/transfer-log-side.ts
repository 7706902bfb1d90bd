// Which side of its AuthorizationUsed log the token emits an authorization's Transfer on, as the server's own
// successful settlements show it (their logs are ours to read: we know the authorization and the transaction).
// X402_TRANSFER_LOG is configured, and a use someone else submitted is judged by it; a side our own settlements
// contradict judges nothing (movedToTreasury leaves the payment settling) and shows in health and metrics. What a
// settlement showed is kept on the settler's row too, so every instance knows it from the first settlement any of
// them made, not only from its own.
import { and, eq } from "drizzle-orm";
import { privateKeyToAccount } from "viem/accounts";
import { x402Settlers } from "@/lib/db/schema";
import { db } from "@/lib/domain/database";
import type { X402Config } from "@/lib/env";
import { log } from "@/lib/log";
import { processState } from "@/lib/singleton";

export type TransferLogSide = "after" | "before";

/** The side the last own settlement showed: this process's, or, until it has one, the shared record's. */
const seen = processState("x402-transfer-log-side", () => ({
  observed: undefined as TransferLogSide | undefined,
  txHash: undefined as string | undefined,
  settlers: new Map<string, string>(),
}));

function settlerAddress(config: X402Config): string {
  const known = seen.settlers.get(config.settlerKey);
  if (known) return known;
  const address = privateKeyToAccount(config.settlerKey).address;
  seen.settlers.set(config.settlerKey, address);
  return address;
}

/**
 * What an own settlement's logs showed: logged when it contradicts the configured side (once per change), and
 * stored for the other instances (beside the money path: a failure to store it is logged, never thrown).
 */
export function recordTransferLogSide(config: X402Config, observed: TransferLogSide, txHash: string): void {
  const changed = seen.observed !== observed;
  Object.assign(seen, { observed, txHash });
  if (changed && observed !== config.transferLog)
    log.error(
      "X402_TRANSFER_LOG contradicts the token: our own settlement's Transfer log is on the other side of its AuthorizationUsed log; uses someone else submitted are not judged until it is set right",
      { X402_TRANSFER_LOG: config.transferLog, observed, txHash },
    );
  void storeTransferLogSide(config, observed, txHash).catch((err: unknown) =>
    log.warn("the token's Transfer log side could not be stored for the other instances", { txHash, err }),
  );
}

async function storeTransferLogSide(config: X402Config, observed: TransferLogSide, txHash: string): Promise<void> {
  const shared = { transferLogSide: observed, transferLogTxHash: txHash };
  await (
    await db()
  )
    .insert(x402Settlers)
    .values({ chainId: config.chainId, address: settlerAddress(config), nextNonce: 0, ...shared })
    .onConflictDoUpdate({ target: [x402Settlers.chainId, x402Settlers.address], set: shared });
}

/**
 * "ok" when the server's own settlements show the configured side, "contradicted" when they show the other,
 * "unchecked" before this process has seen one (of its own, or recorded by another: see transferLogState).
 */
export function transferLogHealth(config: X402Config): "ok" | "contradicted" | "unchecked" {
  if (seen.observed === undefined) return "unchecked";
  return seen.observed === config.transferLog ? "ok" : "contradicted";
}

/**
 * transferLogHealth, once this process has looked at the shared record while it has seen no settlement of its own
 * (an instance started after the others settled, or one that has settled nothing yet): one read of the settler's row.
 */
export async function transferLogState(config: X402Config): Promise<"ok" | "contradicted" | "unchecked"> {
  if (seen.observed === undefined) {
    const [row] = await (
      await db()
    )
      .select({ side: x402Settlers.transferLogSide, txHash: x402Settlers.transferLogTxHash })
      .from(x402Settlers)
      .where(and(eq(x402Settlers.chainId, config.chainId), eq(x402Settlers.address, settlerAddress(config))));
    if (row?.side && seen.observed === undefined) Object.assign(seen, { observed: row.side, txHash: row.txHash });
  }
  return transferLogHealth(config);
}
