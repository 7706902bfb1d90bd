// What follows a pay-per-call settlement once it is recorded (CONTRACT §15): its finish when it is included with
// status 1 (the payer's account, the top-up of the whole payment, the job and its charge, in one transaction,
// once, whoever gets there first: the request that sent it or the sweep), and the sweep that resolves the
// settlements no request is waiting for any more (a request that timed out, a broadcast that failed midway, a
// server that crashed), on start-up and every tick. Each one is looked up on chain by every hash sent at its
// nonce: included, it is finished (or failed, if it reverted); its nonce taken by something else, it failed;
// not mined within the bound while it holds the settler's sequence back, it is replaced at its nonce with a
// higher fee (a 0-value transfer to the settler once its authorization has expired), and reported. Reservations
// left by a request that died before it recorded its settlement are failed once older than reservationBoundMs.
import type { ExecutionJob } from "@/lib/contract/schemas";
import type { X402Config } from "@/lib/env";
import type { Tx } from "@/lib/db/database";
import { db } from "@/lib/domain/database";
import { DomainError } from "@/lib/domain/errors";
import { isUniqueViolation } from "@/lib/domain/idempotency";
import { log } from "@/lib/log";
import { metrics } from "@/lib/metrics";
import { PaymentsRpcError, readHead, readTokenMetadata, sameAddress } from "@/lib/payments/chain";
import {
  broadcast,
  checkTransferLogSide,
  findAuthorizationUse,
  firstBlockAtOrAfter,
  type Inclusion,
  movedToTreasury,
  readAuthorizationUsed,
  readBlockTime,
  readLatestBlockTime,
  readReceipt,
  readSettlerMinedNonce,
  settlerOf,
  signReplacement,
  validAfterOf,
  validBeforeOf,
} from "@/lib/payments/x402/chain";
import {
  accountForPayer,
  creditSettledPayment,
  failSettlement,
  failStaleReservations,
  findPayment,
  lockPayment,
  markLookedAt,
  markSettled,
  recordReplacement,
  recordSearchFloor,
  staleSettlementAt,
  staleSettlements,
  type PaymentRow,
} from "@/lib/payments/x402/store";
import { createJobs } from "./create-job";
import type { NewJob } from "./create-job";
import { checkSubmission } from "./submit-job";
import type { Placement } from "@/lib/contract/vocabulary";

export interface FinishedSettlement {
  accountId: string | null;
  jobId: string | null;
  /** The job, when this call created it (undefined: created before, by the request or the sweep). */
  job?: ExecutionJob;
  /** Why this call created no job though the payment is credited (the account could not pay for it, say). */
  refusal?: DomainError;
}

/**
 * The job's creation, in a savepoint: a refusal (the balance short, because the §10 top-up watcher credited this
 * transfer before and the credits were spent, or the price rose since the offer; the payer's key taken) rolls back
 * the job alone and is returned; any other error (the database) rolls back the whole finish, tried again.
 */
async function createPaidJob(tx: Tx, job: NewJob): Promise<ExecutionJob | DomainError> {
  try {
    const [created] = await tx.transaction((savepoint) => createJobs(savepoint, [job], { inTransaction: true }));
    return created;
  } catch (error) {
    if (error instanceof DomainError) return error;
    if (isUniqueViolation(error))
      return new DomainError("IDEMPOTENCY_CONFLICT", "This Idempotency-Key was already used for another call.", {
        idempotencyKey: job.idempotency?.key,
      });
    throw error;
  }
}

/** The call a payment paid for, rebuilt from the row (the sweep's case); undefined if it can no longer run. */
async function jobOfPayment(row: PaymentRow): Promise<NewJob | undefined> {
  if (!row.input) return undefined;
  try {
    return await checkSubmission(
      await db(),
      {
        accountId: "",
        apiKeyId: null,
        serviceId: row.serviceId,
        input: row.input,
        placement: (row.placement ?? "any") as Placement,
        idempotencyKey: row.idempotencyKey ?? undefined,
      },
      row.idempotencyKey ? row.fingerprint : undefined,
    );
  } catch (error) {
    log.error("a settled x402 payment's call can no longer run; the payment is credited to the payer", {
      paymentId: row.id,
      err: error instanceof Error ? error.message : String(error),
    });
    return undefined;
  }
}

/**
 * The included settlement's work, once: the payer's account (created without starter credits), the top-up
 * of the whole payment, the job and its charge, and the payment settled, in one transaction under the
 * payment's row lock. A payment already finished (by the other writer) is returned as it is.
 */
export async function finishSettlement(
  config: X402Config,
  paymentId: string,
  receipt: Inclusion,
  prepared?: NewJob,
): Promise<FinishedSettlement> {
  const row = await findPayment(paymentId);
  if (!row) throw new Error(`x402 payment ${paymentId} vanished`);
  if (row.status !== "settling") return { accountId: row.accountId, jobId: row.jobId };
  const job = prepared ?? (await jobOfPayment(row));
  const token = await readTokenMetadata(config);
  return (await db()).transaction(async (tx) => {
    const locked = await lockPayment(tx, paymentId);
    if (!locked || locked.status !== "settling")
      return { accountId: locked?.accountId ?? null, jobId: locked?.jobId ?? null };
    const accountId = await accountForPayer(tx, locked.fromAddress);
    await creditSettledPayment(
      tx,
      config,
      token,
      accountId,
      { id: locked.id, from: locked.fromAddress as `0x${string}`, value: BigInt(locked.value) },
      { txHash: receipt.transactionHash, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash },
    );
    // The money moved: the top-up stands whatever becomes of the job, and the payment is finished either way
    // (settled with no job when it was refused), so the sweep does not try it again.
    const outcome = job ? await createPaidJob(tx, { ...job, row: { ...job.row, accountId } }) : undefined;
    const created = outcome instanceof DomainError ? undefined : outcome;
    if (outcome instanceof DomainError)
      log.warn("a settled x402 payment's job was refused; the payment stays credited to the payer", {
        paymentId,
        code: outcome.code,
        err: outcome.message,
      });
    await markSettled(tx, paymentId, accountId, created?.jobId ?? null, receipt.transactionHash);
    return {
      accountId,
      jobId: created?.jobId ?? null,
      job: created,
      refusal: outcome instanceof DomainError ? outcome : undefined,
    };
  });
}

/**
 * What moved for a payment whose own settlement did not (it reverted, its nonce went to a filler or to a
 * transaction the settler did not record). The authorization is public once sent: anyone may have submitted it
 * first, and then the money moved all the same. The token's authorizationState says whether it was used; if it
 * was, the transaction that used it (its AuthorizationUsed log), if that moved the payment's value to the treasury.
 * Undefined: unused and expired, canceled, or used by another authorization with the same nonce: nothing moved for
 * it, and nothing will; "still valid": unused, but anyone may still submit it (see below); "not found":
 * used, but its transaction was not found, or the node does not show its block's logs yet (reported, looked at again
 * next sweep). `at`: the block our own transaction (reverted, or the filler) was included in (`upTo`), or, when
 * none of ours was found though the settler's nonce moved past it, the head at which that nonce was read. The
 * nonce's state is read at a block number, never at "latest": the head (read first, and at least `upTo`), or that
 * head. A node behind a load balancer that is behind the chain would answer "unused" at "latest" for a nonce used
 * in a block it has not seen, and fail a payment that moved; asked for a block it lacks, it errs instead (503,
 * looked at again). Not at `upTo` itself: ours may have reverted for another reason than the nonce's use, and the
 * authorization been used after it.
 */
export async function transferElsewhere(
  config: X402Config,
  row: PaymentRow,
  at: { upTo: bigint } | { head: bigint },
): Promise<Inclusion | "not found" | "still valid" | undefined> {
  const from = row.fromAddress as `0x${string}`;
  const nonce = row.nonce as `0x${string}`;
  const upTo = "upTo" in at ? at.upTo : undefined;
  const head = "head" in at ? at.head : await readHead(config);
  const stateAt = upTo !== undefined && upTo > head ? upTo : head;
  if (!(await readAuthorizationUsed(config, from, nonce, stateAt))) {
    // Unused: its calldata is public, so anyone may still submit it until validBefore, by the chain's own clock
    // at that block ("still valid": the row stays settling and is looked at again). A filler's has none (0): it is
    // sent only once the authorization has expired.
    const validBefore = row.settlementRawTx ? validBeforeOf(row.settlementRawTx as `0x${string}`) : 0n;
    if (validBefore > 0n && (await readBlockTime(config, stateAt)) < validBefore) return "still valid";
    return undefined;
  }
  const floor = await searchFloor(config, row, stateAt);
  const use = await findAuthorizationUse(config, from, nonce, floor, upTo);
  if (use === "canceled") {
    log.warn("an x402 authorization was canceled by its payer; nothing moved for the payment", { paymentId: row.id });
    return undefined;
  }
  if (use) {
    const moved = await movedToTreasury(config, use, from, nonce, BigInt(row.value));
    if (moved === undefined) {
      // The node that answered does not show the block's logs yet (a lagging node behind a load balancer), or our
      // own settlements contradict X402_TRANSFER_LOG (logged there; health says so): nothing is judged.
      log.warn("an x402 authorization's use was found, but not judged by its block's logs; looked at again later", {
        paymentId: row.id,
        txHash: use.transactionHash,
      });
      return "not found";
    }
    if (moved) return use;
    // Another authorization with the same nonce (to the payer, or less to the treasury) was used first: the
    // payment's own can never be, and what moved is not the payment (the §10 watcher credits any treasury
    // transfer as what it is).
    log.warn("an x402 authorization's nonce was used by another authorization; nothing moved for the payment", {
      paymentId: row.id,
      txHash: use.transactionHash,
    });
    return undefined;
  }
  // Every block from the floor to the head was looked at: the node's logs lack the use (or it lags behind the
  // state it answered). Left settling for the operator, said with what was searched.
  log.error(
    "an x402 authorization is used on chain, but no AuthorizationUsed or AuthorizationCanceled log of it is in the blocks searched",
    { paymentId: row.id, fromBlock: floor.toString(), toBlock: stateAt.toString() },
  );
  return "not found";
}

/** Room for the chain's clock against ours when the settlement's time is turned into a block (10 minutes). */
const clockMarginSeconds = 600n;
/** How far below the settlement's time an authorization's validAfter may take the floor (a day). */
const validAfterReachSeconds = 86_400n;

/**
 * Where the search for a payment's use starts: the first block at or after its settlement was recorded (less the
 * clock's margin), when the authorization was checked unused; a row taken over from a failed one keeps its
 * createdAt, so settling_since first. Never above the authorization's own validAfter (read from the settlement's
 * calldata), which bounds its use by the chain's clock whatever ours says (a chain's clock more than the margin
 * behind ours would otherwise put the use below the floor, never found), down to a day below the settlement's time
 * (a validAfter of 0 must not make every look read the whole chain). Found once by the blocks' timestamps and kept
 * on the row.
 */
async function searchFloor(config: X402Config, row: PaymentRow, head: bigint): Promise<bigint> {
  if (row.useSearchFloor !== null) return row.useSearchFloor;
  const checkedAt = BigInt(Math.floor((row.settlingSince ?? row.createdAt).getTime() / 1000)) - clockMarginSeconds;
  const validAfter = row.settlementRawTx ? validAfterOf(row.settlementRawTx as `0x${string}`) : undefined;
  const reach = checkedAt - validAfterReachSeconds;
  const since =
    validAfter === undefined || validAfter >= checkedAt ? checkedAt : validAfter > reach ? validAfter : reach;
  const floor = await firstBlockAtOrAfter(config, since, head);
  await recordSearchFloor(row.id, floor);
  return floor;
}

/** A settlement of ours that moved nothing: finished by whoever moved the money, or failed when nobody did. */
async function settleOrFail(
  config: X402Config,
  row: PaymentRow,
  txHash: string,
  nothingMoved: Resolution,
  at: { upTo: bigint } | { head: bigint },
): Promise<Resolution> {
  const elsewhere = await transferElsewhere(config, row, at);
  if (elsewhere === "not found" || elsewhere === "still valid") return "reported";
  if (elsewhere) {
    log.warn("an x402 authorization was settled by another transaction than the settler's; finished with it", {
      paymentId: row.id,
      txHash: elsewhere.transactionHash,
    });
    await finishSettlement(config, row.id, elsewhere);
    return "finished";
  }
  await failSettlement(row.id, txHash, "settlement_failed");
  return nothingMoved;
}

/** Replacements at one nonce before the settlement is only reported (the operator looks at the settler). */
const maxReplacements = 5;

/**
 * How long a reservation may stay one before the sweep fails it: a request moves it to settling within its chain
 * reads and its settler turn (seconds), so one still reserved after 5 minutes (the offer's maxTimeoutSeconds)
 * or two settlement timeouts, whichever is longer, was left by a request that died.
 */
export const reservationBoundMs = (config: X402Config) => Math.max(300_000, 2 * config.settlementTimeoutMs);

type Resolution =
  "abandoned" | "finished" | "reverted" | "filled" | "lost" | "replaced" | "rebroadcast" | "reported" | "raced";

/** One settling payment looked up on chain and moved on (see the module's comment). */
async function resolveSettlement(
  config: X402Config,
  row: PaymentRow,
  { head, minedNonce }: { head: bigint; minedNonce: number },
): Promise<Resolution> {
  const current = { hash: row.settlementTxHash as `0x${string}`, raw: row.settlementRawTx as `0x${string}` };
  const settler = settlerOf(config).address;
  for (const hash of [current.hash, ...(row.replacedTxHashes as `0x${string}`[])]) {
    const receipt = await readReceipt(config, hash);
    if (!receipt) continue;
    // The filler took the nonce: the settlement can never be mined (a filler is sent only once the chain's time
    // is past the authorization's validBefore), yet someone else may have used the authorization before.
    if (receipt.to && sameAddress(receipt.to, settler))
      return settleOrFail(config, row, current.hash, "filled", { upTo: receipt.blockNumber });
    if (receipt.status === "success") {
      checkTransferLogSide(config, receipt, {
        from: row.fromAddress as `0x${string}`,
        nonce: row.nonce as `0x${string}`,
        value: BigInt(row.value),
      });
      await finishSettlement(config, row.id, receipt);
      return "finished";
    }
    return settleOrFail(config, row, current.hash, "reverted", { upTo: receipt.blockNumber });
  }
  const nonce = row.settlerNonce ?? 0;
  // Its nonce went to a transaction that is none of those sent for it: none of them can be mined now.
  if (nonce < minedNonce) return settleOrFail(config, row, current.hash, "lost", { head });
  if (!current.raw) return "reported";
  // A filler only once no block can include the settlement any more: the chain's latest block is at or past its
  // validBefore (block times never go back). Then always, whatever the replacements so far: a settlement never
  // mined (one the node refuses) must not hold the settler's nonce for good. A filler (validBefore 0) stays capped.
  const validBefore = validBeforeOf(current.raw);
  const past = nonce === minedNonce && (validBefore === 0n || validBefore <= (await readLatestBlockTime(config)));
  if (nonce > minedNonce || (row.replacedTxHashes.length >= maxReplacements && !(past && validBefore > 0n))) {
    // Waiting behind the stuck one (or given up replacing): make sure the node holds it, and say so.
    if (nonce === minedNonce)
      log.error("an x402 settlement is stuck after its replacements; the settler's later settlements wait", {
        paymentId: row.id,
        settlerNonce: nonce,
        txHash: current.hash,
      });
    await broadcast(config, current).catch(() => undefined);
    return nonce === minedNonce ? "reported" : "rebroadcast";
  }
  // The lowest nonce not mined: every later settlement waits for it. Replaced at that nonce with a higher fee:
  // before its validBefore it may still be mined, so it is sent again, higher; after, a filler (see above).
  const kind = past ? "filler" : "settlement";
  const replacement = await signReplacement(config, current, kind);
  if (!(await recordReplacement(row, replacement))) return "raced";
  metrics().x402SettlementsReplaced.inc({ kind });
  log.warn("an x402 settlement was not mined in time; replaced at its nonce with a higher fee", {
    paymentId: row.id,
    settlerNonce: nonce,
    replaced: current.hash,
    replacement: replacement.hash,
    kind,
  });
  await broadcast(config, replacement).catch((error: unknown) =>
    log.warn("a replacement settlement's broadcast failed; the next sweep sends it again", {
      txHash: replacement.hash,
      err: error instanceof Error ? error.message.split("\n")[0] : String(error),
    }),
  );
  return "replaced";
}

/**
 * Resolves the settlements no request waits for any more (settling longer than the settlement timeout), the
 * longest unlooked-at first (staleSettlements). Safe on every instance at once: each move is conditional on the row's state and hash.
 */
export async function sweepSettlements(config: X402Config): Promise<Partial<Record<Resolution, number>>> {
  const counts: Partial<Record<Resolution, number>> = {};
  const abandoned = await failStaleReservations(reservationBoundMs(config));
  if (abandoned > 0) {
    counts.abandoned = abandoned;
    log.warn("x402 reservations left by requests that died were failed; their authorizations are free again", {
      count: abandoned,
    });
  }
  const stale = await staleSettlements(config.settlementTimeoutMs, 50);
  if (stale.length === 0) return counts;
  // The head first, then the settler's nonce and (for a settlement lost) the authorization's state at that head.
  const head = await readHead(config);
  const minedNonce = await readSettlerMinedNonce(config, head);
  // The one at the settler's next nonce holds back every later settlement: first in every batch, wherever the
  // batch's order (longest unlooked-at first) would put it among more stale rows than a batch holds.
  const next = await staleSettlementAt(config.settlementTimeoutMs, minedNonce);
  const rows = next ? [next, ...stale.filter((row) => row.id !== next.id)] : stale;
  let rpcFailures = 0;
  let lastRpcError: PaymentsRpcError | undefined;
  for (const row of rows) {
    let resolution: Resolution | undefined;
    try {
      resolution = await resolveSettlement(config, row, { head, minedNonce });
      counts[resolution] = (counts[resolution] ?? 0) + 1;
    } catch (error) {
      // One row's error, the RPC's included (it may err on that row's calls only: a log range too large for it,
      // a node that fails one query), skips that row alone: the batch goes on.
      if (error instanceof PaymentsRpcError) {
        rpcFailures++;
        lastRpcError = error;
      }
      log.error("an x402 settlement could not be resolved; a later sweep tries again", {
        paymentId: row.id,
        err: error,
      });
    }
    // Left as it was (reported, rebroadcast behind a stuck nonce, or failed to resolve): looked at again a
    // settlement timeout from now, not on every tick, so the batch goes to the others meanwhile.
    if (resolution === undefined || resolution === "reported" || resolution === "rebroadcast") await markLookedAt(row);
  }
  // The RPC failed every row: it is down, and the sweep backs off (startSettlementSweep).
  if (lastRpcError && rpcFailures === rows.length) throw lastRpcError;
  return counts;
}

/** Sweeps at start and every PAYMENTS_POLL_MS (backing off while the RPC does not answer) until stop(). */
export function startSettlementSweep(config: X402Config | undefined): () => Promise<void> {
  if (!config) return async () => {};
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let failures = 0;
  const tick = () => {
    running = sweepSettlements(config)
      .then(() => void (failures = 0))
      .catch((error: unknown) => {
        failures++;
        if (!(error instanceof PaymentsRpcError)) log.error("the x402 settlement sweep failed", { err: error });
      })
      .finally(() => {
        if (stopped) return;
        const delay = Math.min(config.pollMs * 2 ** Math.min(failures, 5), 60_000);
        timer = setTimeout(tick, delay);
        timer.unref?.();
      });
  };
  tick();
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await running;
  };
}
