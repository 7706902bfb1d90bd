// The payment watcher: a background service of every server instance, of which one at a time is active (the
// holder of the scan's lease row, so several instances on PostgreSQL do not all ask the RPC). Each tick it
// scans the token's Transfer logs to the treasury from a stored cursor in bounded block ranges (recording
// payments nobody submitted), then re-checks uncredited top-ups, stalest first. The cursor moves in the same
// transaction as the payments it recorded, and only past blocks deep enough to be final: a restart neither
// misses nor repeats one, and a reorganisation of the last few blocks is scanned again. When the RPC fails
// it backs off (health says "degraded") and never blocks the API.
import { randomUUID } from "node:crypto";
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import { paymentScans } from "@/lib/db/schema";
import { db } from "@/lib/domain/database";
import {
  deferTopUp,
  payersWhoMayHavePaidPerCall,
  recordFoundTransfers,
  reconcileTopUp,
  topUpsToReconcile,
} from "@/lib/domain/top-ups";
import { paymentsConfig, type PaymentsConfig } from "@/lib/env";
import { log } from "@/lib/log";
import { processState } from "@/lib/singleton";
import {
  type AuthorizationUsed,
  PaymentsRpcError,
  paymentsRpcHealth,
  readAuthorizationsUsed,
  readChainId,
  readHead,
  readTokenMetadata,
  readTreasuryTransfers,
  type TreasuryTransfer,
} from "./chain";

const instanceId = randomUUID();
/** Block ranges scanned per tick at most, so a long catch-up still lets re-checks run. */
const rangesPerTick = 10;
const reconcilesPerTick = 50;
const maxBackoffMs = 60_000;

// Per process, not per copy of this module: the watcher runs in the copy the server starts, /api/health in a route's.
// `held`: a payment the database could not record holds the scan's cursor (later blocks wait); `heldTries`
// counts each such payment's failed scans, so none holds it for ever (see recordFoundTransfers).
const watcher = processState("payments-watcher-health", () => ({
  failing: false,
  held: false,
  heldTries: new Map<string, number>(),
}));

/**
 * For /api/health: "disabled" without configuration, "degraded" while the RPC or the watcher fails, or while
 * a payment it could not record holds the scan.
 */
export function paymentsHealth(): "ok" | "degraded" | "disabled" {
  if (!paymentsConfig()) return "disabled";
  return watcher.failing || watcher.held || paymentsRpcHealth() === "degraded" ? "degraded" : "ok";
}

const scanKey = (config: PaymentsConfig) =>
  and(
    eq(paymentScans.chainId, config.chainId),
    eq(paymentScans.tokenAddress, config.tokenAddress.toLowerCase()),
    eq(paymentScans.treasuryAddress, config.treasuryAddress.toLowerCase()),
  );

/** Takes (or renews) the watcher's lease; returns the scan cursor when this instance is the active watcher. */
async function leaseScan(config: PaymentsConfig, head: bigint): Promise<bigint | undefined> {
  const d = await db();
  const leaseMs = Math.max(config.pollMs * 5, 10_000);
  await d
    .insert(paymentScans)
    .values({
      chainId: config.chainId,
      tokenAddress: config.tokenAddress.toLowerCase(),
      treasuryAddress: config.treasuryAddress.toLowerCase(),
      nextBlock: Number(config.startBlock ?? head),
    })
    .onConflictDoNothing();
  const [leased] = await d
    .update(paymentScans)
    .set({ leaseOwner: instanceId, leaseExpiresAt: sql`now() + make_interval(secs => ${leaseMs / 1000})` })
    .where(
      and(
        scanKey(config),
        or(
          eq(paymentScans.leaseOwner, instanceId),
          isNull(paymentScans.leaseExpiresAt),
          lt(paymentScans.leaseExpiresAt, sql`now()`),
        ),
      ),
    )
    .returning({ nextBlock: paymentScans.nextBlock });
  return leased ? BigInt(leased.nextBlock) : undefined;
}

/**
 * The treasury's transfers in [from, to]; a range the RPC refuses (many cap one eth_getLogs answer: "more than
 * 10000 results") is halved, down to one block, before the error stands: a range dense with logs (anyone can emit
 * 0-value transfers to the treasury) must not hold the cursor for good. `narrowed` gets the range's new end.
 */
/** Whether the RPC answered with an error (a JSON-RPC error, an HTTP 4xx), not timed out or failed (down). */
function refusedByRpc(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 10; e = (e as Error).cause, depth++) {
    const { name, status, code } = e as { name?: string; status?: unknown; code?: unknown };
    if (name === "TimeoutError") return false;
    if (name === "HttpRequestError") return typeof status === "number" && status >= 400 && status < 500;
    if (typeof code === "number") return true;
  }
  return false;
}

async function readHalving(
  config: PaymentsConfig,
  from: bigint,
  to: bigint,
  narrowed: (to: bigint) => void,
): Promise<{ transfers: TreasuryTransfer[]; used: AuthorizationUsed[] }> {
  for (;;) {
    try {
      const transfers = await readTreasuryTransfers(config, from, to);
      // The EIP-3009 authorizations those senders used there: a pay-per-call payment's transfer is never credited
      // twice, whichever transaction its payment was credited in (a reorganisation, a re-submission). Asked only of
      // the senders whose use could change a credit (anyone can name thousands of made-up senders in 0-value
      // transfers to the treasury, and an RPC refuses a query naming them all: the scan would wait at that block).
      const senders = await payersWhoMayHavePaidPerCall(config, transfers);
      return { transfers, used: await readAuthorizationsUsed(config, senders, from, to) };
    } catch (error) {
      if (!(error instanceof PaymentsRpcError) || !refusedByRpc(error) || to <= from) throw error;
      to = from + (to - from) / 2n;
      narrowed(to);
    }
  }
}

/**
 * Scans up to `rangesPerTick` block ranges from the cursor; returns the payments recorded, and whether a
 * payment the database could not record held the cursor.
 */
async function scanNewBlocks(
  config: PaymentsConfig,
  head: bigint,
  cursor: bigint,
): Promise<{ recorded: number; held: boolean }> {
  const { decimals } = await readTokenMetadata(config);
  // Blocks at or below this height have the required confirmations on top: the cursor may pass them.
  const finalHeight = head - BigInt(config.confirmations);
  let recorded = 0;
  let held = false;
  let from = cursor;
  for (let range = 0; range < rangesPerTick && from <= head; range++) {
    let to = from + config.scanBlocks - 1n < head ? from + config.scanBlocks - 1n : head;
    const { transfers, used } = await readHalving(config, from, to, (smaller) => (to = smaller));
    const final = (to < finalHeight ? to : finalHeight) + 1n;
    const { found, next, holds } = await (
      await db()
    ).transaction(async (tx) => {
      const scanned = await recordFoundTransfers(tx, config, transfers, head, decimals, watcher.heldTries, used);
      // A payment the database could not record for now holds the cursor at its block: scanned again next tick.
      const retry = scanned.retryFromBlock;
      const isHeld = retry !== undefined && retry < final;
      const upTo = isHeld ? retry : final;
      if (upTo > from) {
        await tx
          .update(paymentScans)
          .set({ nextBlock: Number(upTo), updatedAt: sql`now()` })
          .where(
            and(scanKey(config), eq(paymentScans.leaseOwner, instanceId), eq(paymentScans.nextBlock, Number(from))),
          );
      }
      return { found: scanned.recorded, next: upTo, holds: isHeld };
    });
    recorded += found;
    held ||= holds;
    // Unconfirmed blocks are scanned again next tick (their payments are recorded already; the insert is a no-op).
    if (next <= to) break;
    from = next;
  }
  return { recorded, held };
}

/** One look at the chain: scan, then re-check uncredited top-ups. */
export async function watchPaymentsOnce(
  config: PaymentsConfig,
): Promise<{ recorded: number; reconciled: number; active: boolean }> {
  const head = await readHead(config);
  const cursor = await leaseScan(config, head);
  if (cursor === undefined) {
    watcher.held = false; // another instance scans, and says so in its own health
    return { recorded: 0, reconciled: 0, active: false };
  }
  // A scan that fails (its error is the tick's, after) never skips the re-checks of submitted top-ups.
  let scanError: { error: unknown } | undefined;
  const { recorded, held } = await scanNewBlocks(config, head, cursor).catch((error: unknown) => {
    // The RPC answers, but refuses even one block's logs: the scan waits at it (health degraded, as for a payment
    // held), with no backoff, so the re-checks keep their pace. Any other failure is the tick's (backoff).
    if (error instanceof PaymentsRpcError && refusedByRpc(error)) {
      log.error("the payments RPC refuses the logs of one block; the scan waits at it", { cursor: String(cursor) });
      return { recorded: 0, held: true };
    }
    scanError = { error };
    return { recorded: 0, held: watcher.held };
  });
  watcher.held = held;
  let reconciled = 0;
  let rpcError: PaymentsRpcError | undefined;
  for (const row of await topUpsToReconcile(config, reconcilesPerTick)) {
    try {
      await reconcileTopUp(config, row);
      reconciled++;
    } catch (error) {
      // One row's error (its own data, or an RPC that errs on its transaction only) goes to the back of the
      // queue and never holds back the others' credits.
      if (error instanceof PaymentsRpcError) rpcError = error;
      else log.error("top-up re-check failed; the others go on", { topUpId: row.id, err: error });
      await deferTopUp(row.id);
    }
  }
  // The RPC answered this tick's head and scan, so it is up: the failing transactions are retried later.
  if (rpcError) log.warn("payments RPC failed on some top-ups; they are re-checked later", { err: rpcError.message });
  if (scanError) throw scanError.error;
  return { recorded, reconciled, active: true };
}

/** PAYMENTS_CHAIN_ID must be the RPC's chain: a mismatch would credit payments from another network. */
export async function checkPaymentsChain(config: PaymentsConfig): Promise<void> {
  const actual = await readChainId(config);
  if (actual !== config.chainId) {
    throw new Error(`PAYMENTS_CHAIN_ID is ${config.chainId} but the RPC at PAYMENTS_RPC_URL serves chain ${actual}`);
  }
  await readTokenMetadata(config);
}

/**
 * Start-up's check: a chain mismatch is fatal; an RPC that does not answer yet is not (the watcher keeps
 * trying, health says "degraded", and the rest of the product serves).
 */
export async function checkPaymentsAtStart(): Promise<void> {
  const config = paymentsConfig();
  if (!config) return;
  try {
    await checkPaymentsChain(config);
  } catch (error) {
    if (!(error instanceof PaymentsRpcError)) throw error;
    log.warn("payments RPC does not answer at start; top-ups wait for it", { err: error.message });
  }
}

/** Runs the watcher until the returned stop() is called (a no-op when top-ups are not configured). */
export function startPaymentWatcher(config = paymentsConfig()): () => Promise<void> {
  if (!config) return async () => {};
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let chainChecked = false;
  let failures = 0;
  const tick = () => {
    running = (async () => {
      if (!chainChecked) {
        await checkPaymentsChain(config);
        chainChecked = true;
      }
      await watchPaymentsOnce(config);
      if (failures > 0) log.info("payments RPC answers again", { afterFailures: failures });
      failures = 0;
      watcher.failing = false;
    })()
      .catch((err: unknown) => {
        failures++;
        watcher.failing = true;
        if (err instanceof PaymentsRpcError)
          log.warn("payments RPC unavailable; backing off", { err: err.message, failures });
        else log.error("payment watcher failed", { err });
      })
      .finally(() => {
        const delay = failures === 0 ? config.pollMs : Math.min(config.pollMs * 2 ** failures, maxBackoffMs);
        if (!stopped) timer = setTimeout(tick, delay);
      });
  };
  timer = setTimeout(tick, 0);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
