// The settler's state, for /api/health (CONTRACT §15): a settler without ETH cannot settle, so every paid call
// would fail; a settlement not mined for long holds every later one back (the sweep replaces it meanwhile).
// Read at most once per PAYMENTS_POLL_MS, so health checks never flood the RPC.
import { x402Config } from "@/lib/env";
import { log } from "@/lib/log";
import { processState } from "@/lib/singleton";
import { readSettlerBalance } from "./chain";
import { countStuckSettlements } from "./store";

export type SettlerHealth = "ok" | "low" | "stuck" | "unknown" | "disabled";

const last = processState("x402-settler-health", () => ({
  at: 0,
  state: "unknown" as SettlerHealth,
  balanceWei: undefined as bigint | undefined,
}));

/** "low" below PAYMENTS_SETTLER_MIN_WEI, "stuck" while a settlement waits too long, "unknown" while the RPC does not answer, "disabled" without x402. */
export async function settlerHealth(): Promise<SettlerHealth> {
  const config = x402Config();
  if (!config) return "disabled";
  if (Date.now() - last.at < config.pollMs) return last.state;
  let state: SettlerHealth;
  let balanceWei: bigint | undefined;
  try {
    balanceWei = await readSettlerBalance(config);
    state = balanceWei < config.settlerMinWei ? "low" : "ok";
    if (state === "ok" && (await countStuckSettlements(3 * config.settlementTimeoutMs)) > 0) state = "stuck";
  } catch {
    state = "unknown";
  }
  if (state === "low" && last.state !== "low")
    log.warn("the x402 settler is low on ETH: paid calls fail once it cannot pay for gas", {
      minWei: config.settlerMinWei.toString(),
    });
  Object.assign(last, { at: Date.now(), state, balanceWei });
  return state;
}

/** The settler's ETH balance for the metrics, from the same read as health (at most once per PAYMENTS_POLL_MS). */
export async function settlerBalanceWei(): Promise<bigint | undefined> {
  if ((await settlerHealth()) === "disabled") return undefined;
  return last.balanceWei;
}
