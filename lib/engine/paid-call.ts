// Pay per call (CONTRACT §15): a caller with a wallet and no account pays for one call with an EIP-3009
// authorization, and the job follows the money. In order: the checks that need no chain (against the server's
// own terms), a replay for a retried Idempotency-Key, the authorization's nonce reserved (one row, before any
// work), the chain's word (authorization unused, balance, a simulation), the settlement sent in the settler's
// turn and waited for; only once it is included with status 1 are the payer's account, the top-up of the
// whole payment, the job and its charge written, in one transaction.
import type { Address } from "viem";
import type { ExecutionJob } from "@/lib/contract/schemas";
import { x402ErrorReasons, type X402ErrorReason } from "@/lib/contract/vocabulary";
import type { X402Config } from "@/lib/env";
import { log } from "@/lib/log";
import { accounts, x402Payments } from "@/lib/db/schema";
import { db } from "@/lib/domain/database";
import { DomainError } from "@/lib/domain/errors";
import { findReplay, requestFingerprint } from "@/lib/domain/idempotency";
import { maxCredits } from "@/lib/domain/top-ups";
import { PaymentsRpcError } from "@/lib/payments/chain";
import {
  broadcast,
  checkTransferLogSide,
  readAuthorizationUsed,
  readSettlerNonce,
  readTokenBalance,
  settlerOf,
  signSettlement,
  simulateSettlement,
  SimulationRevertedError,
  waitForSettlement,
  type Authorization,
  type Inclusion,
} from "@/lib/payments/x402/chain";
import { termsOf, type Resource, type Terms } from "@/lib/payments/x402/offer";
import { checkPayment, type Payment, type Refusal } from "@/lib/payments/x402/payment";
import {
  creditOfPayment,
  failSettlement,
  findAuthorization,
  findKeyHolder,
  findPayment,
  inSettlerTurn,
  issueAccessToken,
  recordSettlement,
  releaseAuthorization,
  reserveAuthorization,
  type PaymentRow,
} from "@/lib/payments/x402/store";
import { eq } from "drizzle-orm";
import { getJob } from "./job-views";
import { finishSettlement, transferElsewhere } from "./paid-settlement";
import { checkSubmission } from "./submit-job";
import type { Placement } from "@/lib/contract/vocabulary";

export interface PaidCall {
  serviceId: string;
  input: Record<string, unknown>;
  placement?: Placement;
  idempotencyKey?: string;
  payment: Payment;
  resource: Omit<Resource, "creditCost">;
  /**
   * The rate limits, before any RPC call: with the payer's address once its signature is proven here (the
   * recovered signer), or with none when only the chain can prove it. Throws to refuse (429).
   */
  admit?: (provenPayer: Address | undefined) => Promise<void>;
}

export type PaidCallOutcome =
  | { kind: "accepted"; job: ExecutionJob; accessToken: string; transaction: string; payer: Address; replayed: boolean }
  | { kind: "refused"; refusal: Refusal; terms: Terms };

const unavailable = (message: string) => new DomainError("UNAVAILABLE", message, undefined, 5);

/** What a call costs before any payment is looked at: the service (404, 409) and its input (422) checked. */
export async function termsOfCall(
  config: X402Config,
  call: Pick<PaidCall, "serviceId" | "input" | "placement" | "resource">,
): Promise<Terms> {
  const job = await checkSubmission(await db(), { accountId: "", apiKeyId: null, ...call }, undefined);
  return fromChain(() => termsOf(config, { ...call.resource, creditCost: job.row.creditCost }));
}

/** Runs a chain read; an RPC that does not answer is the contract's 503 (nothing charged). */
async function fromChain<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof PaymentsRpcError)
      throw unavailable("The payments network does not answer right now; nothing was charged. Try again in a moment.");
    throw error;
  }
}

export async function payForCall(config: X402Config, call: PaidCall): Promise<PaidCallOutcome> {
  const d = await db();
  const placement = call.placement ?? "any";
  const fingerprint = requestFingerprint(call.serviceId, call.input, placement);
  const job = await checkSubmission(
    d,
    { accountId: "", apiKeyId: null, ...call },
    call.idempotencyKey ? fingerprint : undefined,
  );
  const terms = await fromChain(() => termsOf(config, { ...call.resource, creditCost: job.row.creditCost }));
  const refused = (refusal: Refusal): PaidCallOutcome => ({ kind: "refused", refusal, terms });
  const { decimals } = terms;
  // A payment worth more credits than a balance holds is refused before it moves, never rounded.
  const maxValue = (maxCredits * 10n ** BigInt(decimals)) / config.creditsPerToken;
  const checked = await checkPayment(config, terms, call.payment, BigInt(Math.floor(Date.now() / 1000)), maxValue);
  if ("refusal" in checked) return refused(checked.refusal);
  const { authorization, signatureProven } = checked;

  // A replay hands out an access token to `from`'s earlier job: only for a signature proven to be `from`'s.
  const replay = () => replayKeyed(authorization, call.idempotencyKey, fingerprint);
  const earlier = signatureProven ? await replay() : undefined;
  if (earlier) return earlier;

  const reservation = {
    chainId: config.chainId,
    tokenAddress: config.tokenAddress,
    authorization,
    serviceId: call.serviceId,
    input: call.input,
    placement,
    fingerprint,
    idempotencyKey: call.idempotencyKey,
  };
  // The payer's allowance is spent only by an authorization of theirs nobody presented before (no row holds it)
  // whose signature is proven theirs: only the payer can make one. The authorization is public once sent, so replays
  // of it (refused as nonce_used below, or a failed one taken over) spend only their clients' allowance, never the
  // payer's. Before any RPC call and before anything is written: a 429 leaves no row behind, and a later request
  // with the same authorization finds none to take over and is counted again.
  const isUnseen = signatureProven && !(await findAuthorization(reservation));
  await call.admit?.(isUnseen ? authorization.from : undefined);
  const reserved = await reserveAuthorization(reservation);
  if (reserved === "key held") {
    // Another payment of this payer holds the key (a retry with a new authorization while the first settles):
    // nothing of this one moves; it gets the first one's job once that is settled.
    const holder = await findKeyHolder(authorization.from, call.idempotencyKey ?? "");
    if (holder && holder.fingerprint !== fingerprint) throw idempotencyConflict(call.idempotencyKey ?? "");
    if (signatureProven) {
      if (holder) await settledOrFailed(config, holder.id);
      const replayed = await replay();
      if (replayed) return replayed;
    }
    throw unavailable("A payment with this Idempotency-Key is still being settled; nothing was charged for this one.");
  }
  if (!reserved) {
    // Another request holds this authorization: the same keyed request waits for it and replays its answer.
    const holder = await findAuthorization(reservation);
    const isSameRequest =
      signatureProven &&
      call.idempotencyKey !== undefined &&
      holder?.idempotencyKey === call.idempotencyKey &&
      holder.fingerprint === fingerprint;
    if (!holder || !isSameRequest)
      return refused({ reason: "nonce_used", message: "This authorization has already been used for another call." });
    const outcome = await settledOrFailed(config, holder.id);
    if (outcome?.status === "settled") {
      const replayed = await replay();
      if (replayed) return replayed;
    }
    if (outcome?.status === "failed" && isReason(outcome.failureReason))
      return refused({ reason: outcome.failureReason, message: "The same payment, sent just before, was refused." });
    throw unavailable("The same payment is still being settled; try again in a moment.");
  }
  const row: PaymentRow = reserved;
  try {
    return await settleReserved();
  } catch (error) {
    // Whatever is thrown before the settlement is recorded (an RPC that stops answering, an IDEMPOTENCY_CONFLICT
    // found once the signature is proven, a database error) sent nothing: the authorization and the payer's
    // Idempotency-Key are freed here, in one place. A recorded settlement is not: release moves reserved rows only.
    await releaseAuthorization(row.id, null).catch((release: unknown) =>
      log.error("an x402 reservation could not be released; the sweep fails it once it is old", {
        paymentId: row.id,
        err: release,
      }),
    );
    throw error;
  }

  async function settleReserved(): Promise<PaidCallOutcome> {
    if (signatureProven) {
      // The key's earlier payment may have settled between the replay above and this reservation.
      const settledMeanwhile = await replay();
      if (settledMeanwhile) {
        await releaseAuthorization(row.id, null);
        return settledMeanwhile;
      }
    }

    // The chain's word, then the settlement. Nothing has moved until it is sent: any failure before frees the
    // authorization (payForCall's one catch).
    let gas: bigint;
    try {
      if (await readAuthorizationUsed(config, authorization.from, authorization.nonce)) {
        await releaseAuthorization(row.id, "nonce_used");
        return refused({ reason: "nonce_used", message: "This authorization has already been used on-chain." });
      }
      if ((await readTokenBalance(config, authorization.from)) < authorization.value) {
        await releaseAuthorization(row.id, "insufficient_funds");
        return refused({
          reason: "insufficient_funds",
          message: `${authorization.from} holds less than the authorized value.`,
        });
      }
      gas = await simulateSettlement(config, authorization);
    } catch (error) {
      if (error instanceof SimulationRevertedError) {
        await releaseAuthorization(row.id, "settlement_failed");
        return refused({ reason: "settlement_failed", message: `The transfer would fail: ${error.message}` });
      }
      return fromChain(() => Promise.reject(error));
    }
    if (!signatureProven) {
      // The simulation ran the token's own signature check: now it stands for `from`, replays included.
      const proven = await replay();
      if (proven) {
        await releaseAuthorization(row.id, null);
        return proven;
      }
    }

    // Recorded (settling, with its signed bytes) before it is broadcast; a failure to record it sent nothing.
    const settler = settlerOf(config).address;
    const stillSettling = (message: string) =>
      unavailable(`${message} Nothing was charged for the call yet; if the payment is included, its job is created.`);
    const { signed, sent } = await inSettlerTurn(config, settler, async () => {
      const recorded = await fromChain(() =>
        recordSettlement(
          config,
          settler,
          row.id,
          () => readSettlerNonce(config),
          (nonce) => signSettlement(config, authorization, nonce, gas),
        ),
      );
      try {
        await broadcast(config, recorded);
        return { signed: recorded, sent: true };
      } catch (error) {
        // It may have reached the node all the same (a timeout, a reset connection): left settling for the sweep.
        log.warn("an x402 settlement's broadcast failed; the sweep resolves it", {
          txHash: recorded.hash,
          err: error instanceof Error ? error.message.split("\n")[0] : String(error),
        });
        return { signed: recorded, sent: false };
      }
    });
    if (!sent) throw stillSettling("The payment's settlement could not be confirmed as sent.");

    const outcome = await waitForSettlement(config, signed, config.settlementTimeoutMs).catch((error: unknown) => {
      if (error instanceof PaymentsRpcError) throw stillSettling("The payments network stopped answering.");
      throw error;
    });
    if (outcome.state === "timeout") {
      log.error("an x402 settlement was not included in time; the sweep resolves it", {
        txHash: signed.hash,
        payer: authorization.from,
      });
      throw stillSettling("The payment's settlement is not yet included.");
    }
    // Only our own transaction's receipt says what the settlement did: another at its nonce (the sweep's filler, a
    // replacement) moved nothing of this payment's by itself. Left to the sweep, which reads receipts by hash.
    if (outcome.receipt.transactionHash.toLowerCase() !== signed.hash.toLowerCase())
      throw stillSettling("The payment's settlement was replaced at its nonce.");
    checkTransferLogSide(config, outcome.receipt, authorization);
    let receipt: Inclusion = outcome.receipt;
    if (outcome.receipt.status !== "success") {
      // Reverted: nothing moved, unless someone else submitted the (public) authorization first.
      const elsewhere = await transferElsewhere(
        config,
        // As recorded: its settlement (whose calldata holds the authorization's validBefore) and its settling time.
        (await findPayment(row.id)) ?? row,
        { upTo: outcome.receipt.blockNumber },
      ).catch((error: unknown) => {
        if (error instanceof PaymentsRpcError) throw stillSettling("The payments network stopped answering.");
        throw error;
      });
      if (elsewhere === "not found")
        throw stillSettling("The payment's authorization was used by another transaction.");
      // Nothing moved yet, but the authorization stays usable by anyone until it expires: not final until then.
      if (elsewhere === "still valid")
        throw stillSettling(
          `The settlement ${signed.hash} reverted, but the authorization can still be used until it expires.`,
        );
      if (elsewhere) receipt = elsewhere;
      else if (await failSettlement(row.id, signed.hash, "settlement_failed")) {
        log.warn("an x402 settlement reverted", { txHash: signed.hash, payer: authorization.from });
        return refused({
          reason: "settlement_failed",
          message: `The settlement ${signed.hash} reverted; nothing moved.`,
        });
      } else {
        // The sweep moved the row meanwhile: it found the authorization used since (finished, and answered from
        // that), or it replaced or failed the settlement. Never "nothing moved" for a payment that did.
        const now = await findPayment(row.id);
        if (now?.status === "failed")
          return refused({
            reason: "settlement_failed",
            message: `The settlement ${signed.hash} reverted; nothing moved.`,
          });
        if (now?.status !== "settled") throw stillSettling("The payment's settlement is being resolved.");
        // Finished: finishSettlement writes nothing more and answers with its job. The transaction is the one that
        // moved the money, as the finish recorded it (whoever credited it first: the watcher's top-up of it holds
        // no trace of the payment); a row settled before that was recorded: the one its own top-up credits.
        const paidBy = now.paidTxHash ?? (await creditOfPayment(row.id))?.transactionHash ?? signed.hash;
        receipt = { ...outcome.receipt, transactionHash: paidBy as `0x${string}` };
      }
    }
    // The money moved: an RPC that stops answering now (the token's metadata) leaves it to the sweep, a 503.
    const finished = await finishSettlement(config, row.id, receipt, job).catch((error: unknown) => {
      if (error instanceof PaymentsRpcError) throw stillSettling("The payments network stopped answering.");
      throw error;
    });
    if (!finished.jobId || !finished.accountId) {
      // The money moved and stays credited to the payer's account (their wallet signs in to it); the job was not
      // created, and will not be: a final 409 PAYMENT_CLAIMED, the refusal in its details. Never the refusal's own
      // code: INSUFFICIENT_CREDITS would be a 402 with no PAYMENT-REQUIRED, for money that was credited.
      const credited = `The payment (${receipt.transactionHash}) was credited to the account of ${authorization.from}, but its job was not created`;
      const refusal = finished.refusal;
      throw new DomainError(
        "PAYMENT_CLAIMED",
        `${credited}: ${refusal ? refusal.message : "the call can no longer run."}`,
        {
          transaction: receipt.transactionHash,
          ...(refusal && { refusal: { code: refusal.code, message: refusal.message, details: refusal.details } }),
        },
      );
    }
    const accessToken = await issueAccessToken(d, finished.jobId);
    const created = finished.job ?? (await getJob(finished.accountId, finished.jobId));
    log.info("x402 call paid", { jobId: finished.jobId, txHash: receipt.transactionHash, payer: authorization.from });
    return {
      kind: "accepted",
      job: created,
      accessToken,
      transaction: receipt.transactionHash,
      payer: authorization.from,
      replayed: finished.job === undefined,
    };
  }
}

const idempotencyConflict = (key: string) =>
  new DomainError("IDEMPOTENCY_CONFLICT", "This Idempotency-Key was already used for a different request.", {
    idempotencyKey: key,
  });

const isReason = (value: string | null): value is X402ErrorReason =>
  (x402ErrorReasons as readonly (string | null)[]).includes(value);

/** A keyed call the payer already made: the same job again (a fresh access token to follow it), and nothing paid. */
async function replayKeyed(
  authorization: Authorization,
  idempotencyKey: string | undefined,
  fingerprint: string,
): Promise<PaidCallOutcome | undefined> {
  if (!idempotencyKey) return undefined;
  const d = await db();
  const [account] = await d
    .select({ id: accounts.id })
    .from(accounts)
    .where(eq(accounts.walletAddress, authorization.from));
  if (!account) return undefined;
  const stored = await findReplay(d, account.id, idempotencyKey, fingerprint);
  if (!stored) return undefined;
  const job = stored.body as ExecutionJob;
  const paid = await findAuthorizationOfJob(job.jobId);
  return {
    kind: "accepted",
    job,
    accessToken: await issueAccessToken(d, job.jobId),
    transaction: paid?.paidTxHash ?? paid?.settlementTxHash ?? "",
    payer: authorization.from,
    replayed: true,
  };
}

async function findAuthorizationOfJob(jobId: string): Promise<PaymentRow | undefined> {
  const [row] = await (await db()).select().from(x402Payments).where(eq(x402Payments.jobId, jobId));
  return row;
}

/** Waits (with backoff) for the payment `id` to finish: settled, failed, or still going at the deadline. */
async function settledOrFailed(config: X402Config, id: string): Promise<PaymentRow | undefined> {
  const deadline = Date.now() + config.settlementTimeoutMs + 5_000;
  for (let delay = 20; Date.now() < deadline; delay = Math.min(delay * 2, 500)) {
    const row = await findPayment(id);
    if (!row || row.status === "settled" || row.status === "failed") return row;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
  return findPayment(id);
}
