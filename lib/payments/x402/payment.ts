// A payment as it arrives (CONTRACT §15): the `PAYMENT-SIGNATURE` (v2) or `X-PAYMENT` (v1) header decoded into an
// EIP-3009 authorization, then checked against the terms the server offers, never against the client's echo of
// them: the typed data whose signature is verified is rebuilt from the server's own payee, token, chain and
// domain, so an authorization for anyone else (another payee, token or chain) does not verify.
import { decodePaymentSignatureHeader } from "@x402/core/http";
import { getAddress, recoverTypedDataAddress, size, type Address, type Hex } from "viem";
import { authorizationTypes } from "@x402/evm";
import { z } from "zod";
import type { X402ErrorReason } from "@/lib/contract/vocabulary";
import type { X402Config } from "@/lib/env";
import type { Authorization } from "./chain";
import { maxTimeoutSeconds, type Terms } from "./offer";

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const uint256 = z
  .string()
  .regex(/^[0-9]{1,78}$/)
  .refine((v) => BigInt(v) < 2n ** 256n, "above 2^256 - 1");
const hex = z.string().regex(/^0x(?:[0-9a-fA-F]{2})+$/);
const exactPayload = z.object({
  signature: hex,
  authorization: z.object({
    from: address,
    to: address,
    value: uint256,
    validAfter: uint256,
    validBefore: uint256,
    nonce: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
  }),
});
const paymentPayload = z.discriminatedUnion("x402Version", [
  z.looseObject({
    x402Version: z.literal(2),
    accepted: z.looseObject({ scheme: z.string(), network: z.string(), asset: z.string() }),
    payload: exactPayload,
  }),
  z.looseObject({ x402Version: z.literal(1), scheme: z.string(), network: z.string(), payload: exactPayload }),
]);

/** A decoded payment: the version (which response header answers it), what it says it pays for, the authorization. */
export interface Payment {
  x402Version: 1 | 2;
  scheme: string;
  network: string;
  /** v2 names the token it pays with; v1 leaves it to the offer. */
  asset: string | undefined;
  authorization: Authorization;
}

/** The header a request pays with, if any: `PAYMENT-SIGNATURE` (v2), else `X-PAYMENT` (v1). */
export function paymentHeaderOf(
  headers: Headers,
): { name: "payment-signature" | "x-payment"; value: string } | undefined {
  const v2 = headers.get("payment-signature");
  if (v2 !== null) return { name: "payment-signature", value: v2 };
  const v1 = headers.get("x-payment");
  return v1 === null ? undefined : { name: "x-payment", value: v1 };
}

/** The header decoded, or undefined when it is not base64 JSON of an x402 exact EIP-3009 payment (a 400). */
export function decodePayment(value: string): Payment | undefined {
  let decoded: unknown;
  try {
    decoded = decodePaymentSignatureHeader(value.trim());
  } catch {
    return undefined;
  }
  const parsed = paymentPayload.safeParse(decoded);
  if (!parsed.success) return undefined;
  const payment = parsed.data;
  const { authorization: a, signature } = payment.payload;
  const version = payment.x402Version;
  const said = version === 2 ? payment.accepted : payment;
  return {
    x402Version: version,
    scheme: said.scheme,
    network: said.network,
    asset: version === 2 ? payment.accepted.asset : undefined,
    authorization: {
      from: getAddress(a.from),
      to: getAddress(a.to),
      value: BigInt(a.value),
      validAfter: BigInt(a.validAfter),
      validBefore: BigInt(a.validBefore),
      nonce: a.nonce.toLowerCase() as Hex,
      signature: signature as Hex,
    },
  };
}

export interface Refusal {
  reason: X402ErrorReason;
  message: string;
}

/** How far ahead of ours a payer's clock may be when it sets validBefore to its now + maxTimeoutSeconds. */
const clockAllowanceSeconds = 60;

const refusal = (reason: X402ErrorReason, message: string): Refusal => ({ reason, message });

/**
 * Every check that needs no chain: what it pays for (scheme, network, token), how much, when, and who signed
 * it for whom. The authorization returned is the one to settle: the offered payee in place of the echo's.
 */
export async function checkPayment(
  config: X402Config,
  terms: Terms,
  payment: Payment,
  nowSeconds: bigint,
  maxValue: bigint,
): Promise<{ refusal: Refusal } | { authorization: Authorization; signatureProven: boolean }> {
  const a = { ...payment.authorization, to: terms.payTo };
  if (payment.scheme !== "exact" || payment.network !== terms.network)
    return { refusal: refusal("wrong_network", `Pay with the exact scheme on ${terms.network}.`) };
  if (payment.asset !== undefined && payment.asset.toLowerCase() !== terms.asset.toLowerCase())
    return { refusal: refusal("wrong_network", `Pay with the token ${terms.asset}.`) };
  if (a.value < terms.amount)
    return {
      refusal: refusal(
        "invalid_amount",
        `The call costs ${terms.amount} base units; the authorization is for ${a.value}.`,
      ),
    };
  if (a.value > maxValue)
    return { refusal: refusal("invalid_amount", "The authorization is for more than an account's credits can hold.") };
  if (a.validAfter > nowSeconds || nowSeconds >= a.validBefore)
    return { refusal: refusal("expired", "The authorization is not valid now (validAfter ≤ now < validBefore).") };
  // The offer's maxTimeoutSeconds bounds the window's end (x402's clients set validBefore to now + it): a
  // settlement that reverts while its authorization is unused stays settling until validBefore, so a far one
  // would let a payer hold a payment settling (and health's settler stuck) for as long as they chose.
  if (a.validBefore > nowSeconds + BigInt(maxTimeoutSeconds + clockAllowanceSeconds))
    return {
      refusal: refusal(
        "expired",
        `The authorization's validBefore is more than ${maxTimeoutSeconds} s (the offer's maxTimeoutSeconds) ` +
          `plus ${clockAllowanceSeconds} s away.`,
      ),
    };
  const signed = await isSignedBy(config, terms, a);
  if (signed === "wrong")
    return {
      refusal: refusal(
        "invalid_signature",
        `The signature is not ${a.from}'s authorization to pay ${terms.payTo} in ${terms.asset} on ${terms.network}.`,
      ),
    };
  // Not yet proven (a contract wallet's signature): only the simulation proves it, so until then this payment
  // may not stand for `from` in anything that needs no chain, such as replaying `from`'s keyed calls.
  return { authorization: a, signatureProven: signed === "proven" };
}

/**
 * Whether `from` signed this authorization (the offered payee, token, chain and domain). An EOA's 65-byte
 * signature is recovered here; other signatures (a smart-contract wallet's) are left to the simulation, which
 * runs the token's own check.
 */
async function isSignedBy(
  config: X402Config,
  terms: Terms,
  a: Authorization,
): Promise<"proven" | "wrong" | "left to the chain"> {
  if (size(a.signature) !== 65) return "left to the chain";
  let signer: Address;
  try {
    signer = await recoverTypedDataAddress({
      domain: { ...terms.extra, chainId: config.chainId, verifyingContract: terms.asset },
      types: authorizationTypes,
      primaryType: "TransferWithAuthorization",
      message: {
        from: a.from,
        to: a.to,
        value: a.value,
        validAfter: a.validAfter,
        validBefore: a.validBefore,
        nonce: a.nonce,
      },
      signature: a.signature,
    });
  } catch {
    return "wrong";
  }
  return signer === a.from ? "proven" : "wrong";
}
