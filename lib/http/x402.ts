// The HTTP side of pay per call (CONTRACT §15): the 402 offer (the v2 PAYMENT-REQUIRED header and the v1 body),
// the payment header read (a malformed one is 400), the rate limits per client and per payer before any RPC
// call, and the answers: 202 with the job and its access token, or 402 with a fresh offer and the refusal in
// PAYMENT-RESPONSE. The rules are in lib/engine/paid-call.ts.
import type { z } from "zod";
import type { ExecuteRequest } from "@/lib/contract/schemas";
import { DomainError } from "@/lib/domain/errors";
import { payForCall, termsOfCall, type PaidCall } from "@/lib/engine/paid-call";
import { appOrigins, x402Config, type X402Config } from "@/lib/env";
import { limits } from "@/lib/limits";
import {
  networkOf,
  paymentRequiredHeaderOf,
  paymentResponseHeaderOf,
  v1BodyOf,
  type Terms,
} from "@/lib/payments/x402/offer";
import { decodePayment, paymentHeaderOf } from "@/lib/payments/x402/payment";
import { clientAddressOf } from "./client-address";
import { jsonResponse } from "./json-response";
import { consumeRateLimit } from "./rate-limit";

const offered = "Pay for this call: send the PAYMENT-SIGNATURE header (x402).";

/** The 402 of an offer or a refusal: the offer again (fresh), and the refusal's PAYMENT-RESPONSE. */
function paymentRequired(terms: Terms, error: string, extraHeaders: Record<string, string> = {}): Response {
  return jsonResponse(v1BodyOf(terms, error), 402, {
    "payment-required": paymentRequiredHeaderOf(terms, error),
    "cache-control": "no-store",
    ...extraHeaders,
  });
}

/** The call's execute, paid with x402 by a caller without a credential (the route's guard let it through). */
export async function answerPaidCall(
  req: Request,
  serviceId: string,
  body: z.output<typeof ExecuteRequest>,
  idempotencyKey: string | undefined,
): Promise<Response> {
  const config = x402Config() as X402Config;
  const call: Omit<PaidCall, "payment"> = {
    serviceId,
    input: body.input,
    placement: body.placement,
    idempotencyKey,
    // The deployment's own origin, never the request's Host (a header proves nothing).
    resource: { url: `${appOrigins()[0]}${new URL(req.url).pathname}`, description: `One call of ${serviceId}` },
  };
  await consumeRateLimit(req, "x402-client", clientAddressOf(req), limits.x402RequestsPerMinute);
  const header = paymentHeaderOf(req.headers);
  if (!header) return paymentRequired(await termsOfCall(config, call), offered);
  const payment = decodePayment(header.value);
  if (!payment)
    throw new DomainError(
      "INVALID_REQUEST",
      `The ${header.name === "x-payment" ? "X-PAYMENT" : "PAYMENT-SIGNATURE"} header is not base64 JSON of an x402 exact payment with an EIP-3009 authorization.`,
    );
  // The payer's allowance is counted once the checks that need no chain have proven the signature theirs (the
  // recovered signer), so nobody can use up someone else's by naming them in `from`, and only for an authorization
  // nobody presented before (payForCall), so nobody can use it up by replaying one of theirs (it is public once
  // sent). A payment whose signature only the chain can prove (a contract wallet's) spends only its client
  // address's allowance, counted above.
  const admit = async (provenPayer: string | undefined) => {
    if (provenPayer) await consumeRateLimit(req, "x402-payer", provenPayer, limits.x402RequestsPerMinute);
  };
  const outcome = await payForCall(config, { ...call, payment, admit });
  const network = networkOf(config);
  // v1 clients read X-PAYMENT-RESPONSE; the contract's PAYMENT-RESPONSE goes to every client.
  const responseHeaders = (value: string): Record<string, string> =>
    payment.x402Version === 1
      ? { "payment-response": value, "x-payment-response": value }
      : { "payment-response": value };
  if (outcome.kind === "refused") {
    const { reason, message } = outcome.refusal;
    const value = paymentResponseHeaderOf(
      { success: false, errorReason: reason, payer: payment.authorization.from },
      network,
    );
    return paymentRequired(outcome.terms, message, responseHeaders(value));
  }
  const value = paymentResponseHeaderOf(
    { success: true, transaction: outcome.transaction, payer: outcome.payer },
    network,
  );
  return jsonResponse({ ...outcome.job, accessToken: outcome.accessToken }, 202, {
    location: `/api/developers/jobs/${outcome.job.jobId}`,
    ...(outcome.replayed ? { "idempotent-replayed": "true" } : {}),
    ...responseHeaders(value),
  });
}
