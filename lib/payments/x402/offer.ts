// The offer of pay per call (CONTRACT §15): what one call of a service costs in the token, as the x402 v2
// `PAYMENT-REQUIRED` header and the v1 body carry it, and the PAYMENT-RESPONSE header of a payment's outcome.
// The price is the credits' price in the token, by the same integer rule the Credits page quotes with.
import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequired, PaymentRequirements, SettleResponse } from "@x402/core/types";
import { formatTokenAmount, tokenAmountForCredits } from "@/lib/contract/top-up-arithmetic";
import type { X402ErrorReason } from "@/lib/contract/vocabulary";
import type { X402Config } from "@/lib/env";
import { PaymentsRpcError, readTokenMetadata } from "@/lib/payments/chain";
import { readTokenDomain } from "./chain";

/** How long an authorization made for an offer may stay valid (validBefore − now), as the offer says. */
export const maxTimeoutSeconds = 300;

/** What is for sale: one call of a service, at its credit price. */
export interface Resource {
  url: string;
  description: string;
  creditCost: number;
}

/** One call's terms, in the token: everything a payment is checked against. */
export interface Terms {
  network: `eip155:${number}`;
  asset: `0x${string}`;
  payTo: `0x${string}`;
  /** Base units of the token. */
  amount: bigint;
  decimals: number;
  extra: { name: string; version: string };
  resource: Resource;
}

export const networkOf = (config: X402Config) => `eip155:${config.chainId}` as const;

/** The price of `creditCost` credits in the token's base units: ceil(creditCost × 10^decimals / CREDITS_PER_TOKEN). */
export const priceOf = (creditCost: number, creditsPerToken: bigint, decimals: number): bigint =>
  tokenAmountForCredits(BigInt(creditCost), creditsPerToken, decimals);

/** One call's price in the token, as the offer asks it and the service page shows it beside the credit price. */
export interface PerCallPrice {
  /** Base units of the token: the offer's `amount`. */
  amount: bigint;
  /** The amount in whole tokens with the token's symbol, e.g. "0.01 USDC". */
  text: string;
}

/**
 * The per-call price of a service costing `creditCost` credits, by the offer's own rule (priceOf), or undefined
 * when pay per call is off or the token cannot be read right now (the page then shows the credit price alone).
 */
export async function perCallPriceOf(
  config: X402Config | undefined,
  creditCost: number,
): Promise<PerCallPrice | undefined> {
  if (!config) return undefined;
  try {
    const { decimals, symbol } = await readTokenMetadata(config);
    const amount = priceOf(creditCost, config.creditsPerToken, decimals);
    return { amount, text: `${formatTokenAmount(amount, decimals)} ${symbol}` };
  } catch (error) {
    if (error instanceof PaymentsRpcError) return undefined;
    throw error;
  }
}

/** The terms of one call of `resource` (the token's decimals and EIP-712 domain read once per process). */
export async function termsOf(config: X402Config, resource: Resource): Promise<Terms> {
  const [{ decimals }, extra] = await Promise.all([readTokenMetadata(config), readTokenDomain(config)]);
  return {
    network: networkOf(config),
    asset: config.tokenAddress,
    payTo: config.treasuryAddress,
    amount: priceOf(resource.creditCost, config.creditsPerToken, decimals),
    decimals,
    extra,
    resource,
  };
}

export function requirementOf(terms: Terms): PaymentRequirements {
  return {
    scheme: "exact",
    network: terms.network,
    amount: terms.amount.toString(),
    asset: terms.asset,
    payTo: terms.payTo,
    maxTimeoutSeconds,
    extra: { ...terms.extra },
  };
}

/** The 402's body for x402 v1 clients: the same requirement, its amount named `maxAmountRequired`. */
export function v1BodyOf(terms: Terms, error: string) {
  const { amount, ...requirement } = requirementOf(terms);
  return {
    x402Version: 1 as const,
    error,
    accepts: [
      {
        ...requirement,
        maxAmountRequired: amount,
        resource: terms.resource.url,
        description: terms.resource.description,
        mimeType: "application/json",
      },
    ],
  };
}

/** The v2 `PAYMENT-REQUIRED` header's value. */
export function paymentRequiredHeaderOf(terms: Terms, error: string): string {
  const required: PaymentRequired = {
    x402Version: 2,
    error,
    resource: { url: terms.resource.url, description: terms.resource.description, mimeType: "application/json" },
    accepts: [requirementOf(terms)],
  };
  return encodePaymentRequiredHeader(required);
}

/** The `PAYMENT-RESPONSE` (v1: `X-PAYMENT-RESPONSE`) header's value. */
export function paymentResponseHeaderOf(
  outcome:
    | { success: true; transaction: string; payer: string }
    | { success: false; errorReason: X402ErrorReason; payer?: string },
  network: `eip155:${number}`,
): string {
  const response: SettleResponse = outcome.success
    ? { success: true, transaction: outcome.transaction, network, payer: outcome.payer }
    : {
        success: false,
        errorReason: outcome.errorReason,
        transaction: "",
        network,
        ...(outcome.payer ? { payer: outcome.payer } : {}),
      };
  return encodePaymentResponseHeader(response);
}
