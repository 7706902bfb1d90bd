// The webhook dispatcher every server instance runs: it claims due deliveries (several instances never
// claim the same attempt), sends them with bounded concurrency (and a cap per endpoint, so one slow
// receiver does not hold back the others), records each attempt, and sleeps until the next delivery falls
// due or a NOTIFY says a new one was written.
import { onSignal } from "@/lib/domain/signals";
import { receiptEventType, webhookChannel, withReceipt } from "@/lib/domain/webhook-events";
import { claimDueDeliveries, recordAttempt, type ClaimedDelivery } from "@/lib/domain/webhook-outbox";
import { receiptsOf } from "@/lib/engine/receipts";
import { decryptSecret, signWebhook } from "@/lib/domain/webhook-signing";
import { env } from "@/lib/env";
import { limits } from "@/lib/limits";
import { log } from "@/lib/log";
import { inSpan, jobAttributes, SpanKind, SpanStatusCode, traceparentOf } from "@/lib/tracing";
import { sendWebhook } from "./webhook-sender";

/** Even without a signal, look again this often (another instance's crashed lease, a lost notification). */
const maxIdleMs = 30_000;
const errorBackoffMs = 1_000;
/**
 * Due at the claim, yet not claimed: its endpoint's cap is taken here (a finishing send pokes), or another instance
 * holds it (nothing pokes here). Looked at again this soon either way. (The due time comes from the claim's own
 * statement, by the database's clock: a retry falling due just after the claim is slept for, not missed, as it was
 * when a second read came after it; be4d7ef.)
 */
const dueUnclaimedMs = 1_000;

const getsReceipt = (claim: ClaimedDelivery): claim is ClaimedDelivery & { jobId: string } =>
  claim.eventType === receiptEventType && claim.jobId !== null;

/**
 * A job.completed event carries the job's receipt, issued here (off the completion's path) before its first
 * attempt and stored once; the delivery's stored body does not hold it: it is added to the body each time it is
 * sent (and shown in the delivery's detail) from the stored receipt, which never changes, so a retry or
 * redelivery sends the same bytes. A claim's receipts are issued together from the jobs the claim read (one
 * insert for those not issued yet): by delivery id, the body to send of each such delivery whose receipt could be
 * issued.
 */
async function bodiesToSend(claims: ClaimedDelivery[]): Promise<Map<string, string>> {
  const receipted = claims.filter(getsReceipt);
  const bodies = new Map<string, string>();
  if (receipted.length === 0) return bodies;
  const receipts = await receiptsOf(receipted.flatMap((claim) => claim.receiptSource ?? []));
  for (const claim of receipted) {
    const receipt = receipts.get(claim.jobId);
    if (receipt !== undefined) bodies.set(claim.deliveryId, withReceipt(claim.body, receipt) ?? claim.body);
  }
  return bodies;
}

/** The body to send: the claim's own, or for a job.completed event the one with its receipt. */
async function bodyToSend(claim: ClaimedDelivery, bodies: Promise<Map<string, string>>): Promise<string> {
  if (!getsReceipt(claim)) return claim.body;
  const body = (await bodies).get(claim.deliveryId);
  if (body === undefined)
    throw new Error(`No receipt for job ${claim.jobId}: not issued (the job is not completed, or signing failed).`);
  return body;
}

/** The delivery's span: the event and the attempt, never the endpoint's URL (its query may hold a secret). */
const deliverySpan = (claim: ClaimedDelivery) => ({
  kind: SpanKind.CLIENT,
  parent: claim.traceContext,
  attributes: {
    ...jobAttributes({ jobId: claim.jobId ?? undefined }),
    "http.request.method": "POST",
    "execution.webhook.event_type": claim.eventType,
    "execution.webhook.attempt": claim.attempt,
  },
});

export function startWebhookDispatcher(): () => Promise<void> {
  const config = env();
  const inFlight = new Map<string, number>();
  const sending = new Set<Promise<void>>();
  let stopped = false;
  let wake: (() => void) | undefined;
  let woken = false;
  const poke = () => {
    woken = true;
    wake?.();
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken || stopped) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  const send = async (claimed: ClaimedDelivery, bodies: Promise<Map<string, string>>) => {
    let body: string;
    try {
      body = await bodyToSend(claimed, bodies);
    } catch (err) {
      // Nothing is sent, and that is an attempt like any other: the retry schedule, the retry window and the
      // delivery's detail apply to it. Unrecorded, a receipt that can never be issued (a signing key that no longer
      // opens) had its delivery claimed again after every lease, for good, with nothing shown but a log line.
      log.error("webhook not sent: the job's receipt could not be issued", { deliveryId: claimed.deliveryId, err });
      const reason = err instanceof Error ? err.message : String(err);
      const outcome = { responseStatus: null, latencyMs: 0, error: `Not sent: ${reason}`, responseBody: null };
      await recordAttempt(claimed, outcome, { headers: {}, attemptedAt: new Date() });
      return;
    }
    const claim = { ...claimed, body };
    const attemptedAt = new Date();
    const timestamp = Math.floor(attemptedAt.getTime() / 1000);
    const secrets = claim.secretCiphertexts.map(decryptSecret);
    // Kept with the attempt (a delivery's detail shows them): the signature, never the secrets.
    const signed = {
      "content-type": "application/json",
      "webhook-id": claim.eventId,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signWebhook(secrets, claim.eventId, timestamp, claim.body),
    };
    const options = {
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      allowedHosts: config.WEBHOOK_ALLOWED_HOSTS,
      maxResponseBytes: limits.webhookResponseBytes,
    };
    const headers = { ...signed, "user-agent": "ExecutionNetwork-Webhooks/1.0" };
    // A job's delivery is a span in the job's trace (tracing on), and carries it to the receiver as traceparent.
    const outcome = !claim.traceContext
      ? await sendWebhook(claim.url, headers, claim.body, options)
      : await inSpan("deliver webhook", deliverySpan(claim), async (span) => {
          const traced = span ? { ...headers, traceparent: traceparentOf(span.spanContext()) } : headers;
          const sent = await sendWebhook(claim.url, traced, claim.body, options);
          if (sent.responseStatus !== null) span?.setAttribute("http.response.status_code", sent.responseStatus);
          if (sent.error) span?.setStatus({ code: SpanStatusCode.ERROR, message: sent.error.split(":")[0] });
          return sent;
        });
    await recordAttempt(claim, outcome, { headers: signed, attemptedAt });
  };

  const launch = (claim: ClaimedDelivery, bodies: Promise<Map<string, string>>) => {
    inFlight.set(claim.endpointId, (inFlight.get(claim.endpointId) ?? 0) + 1);
    const task = send(claim, bodies)
      .catch((err: unknown) =>
        log.error("webhook attempt not recorded; it is retried when its lease ends", {
          deliveryId: claim.deliveryId,
          err,
        }),
      )
      .finally(() => {
        const left = (inFlight.get(claim.endpointId) ?? 1) - 1;
        if (left > 0) inFlight.set(claim.endpointId, left);
        else inFlight.delete(claim.endpointId);
        sending.delete(task);
        poke();
      });
    sending.add(task);
  };

  const loop = async () => {
    while (!stopped) {
      woken = false;
      try {
        const free = config.WEBHOOK_CONCURRENCY - sending.size;
        // Every slot busy: the first send to finish pokes, so neither a claim nor the due time's read (a statement
        // per NOTIFY, that is per completion in a drain, only to learn that nothing can be sent).
        if (free <= 0) {
          await sleep(maxIdleMs);
          continue;
        }
        const { claims, nextDueInMs } = await claimDueDeliveries(free, inFlight);
        const bodies = bodiesToSend(claims);
        // Its failure is each receipt-carrying send's (logged there, retried when the lease ends).
        bodies.catch(() => undefined);
        for (const claim of claims) launch(claim, bodies);
        const claimed = claims.length;
        if (claimed === free) continue;
        if (stopped) break;
        const untilDue = nextDueInMs ?? maxIdleMs;
        const wait = untilDue > 0 ? untilDue : claimed === 0 ? dueUnclaimedMs : 0;
        await sleep(Math.min(wait, maxIdleMs));
      } catch (err) {
        log.warn("webhook dispatcher: database error, retrying", { err });
        await sleep(errorBackoffMs);
      }
    }
  };

  let unlisten: (() => Promise<void>) | undefined;
  const listening = onSignal(webhookChannel, poke).then((stop) => (unlisten = stop));
  const running = listening.then(loop);

  return async () => {
    stopped = true;
    wake?.();
    await running.catch(() => undefined);
    await Promise.all(sending);
    await unlisten?.();
  };
}
