// Pay per call (x402, CONTRACT §15): run a service with no API key, paying for the one call from a wallet. The
// server answers the call with 402 and its price (PAYMENT-REQUIRED); this signs an EIP-3009 authorization for
// exactly that price with the caller's account (a viem local account fits `PaymentSigner`) and sends the call
// again with it (PAYMENT-SIGNATURE). The job comes back with its access token (`jt_…`, shown once).
import { ExecutionApiError, ExecutionNetworkError } from "./errors.js";
import type { ExecutionJob } from "./types.js";

/** What signs the authorization: an address and EIP-712 typed-data signing (viem's `privateKeyToAccount` has both). */
export interface PaymentSigner {
  address: `0x${string}`;
  signTypedData(args: {
    domain: { name: string; version: string; chainId: number; verifyingContract: `0x${string}` };
    types: typeof authorizationTypes;
    primaryType: "TransferWithAuthorization";
    message: {
      from: `0x${string}`;
      to: `0x${string}`;
      value: bigint;
      validAfter: bigint;
      validBefore: bigint;
      nonce: `0x${string}`;
    };
  }): Promise<`0x${string}`>;
}

export interface PayPerCallOptions {
  /** Where the API lives, e.g. `https://execution.example.com`. */
  baseUrl: string;
  signer: PaymentSigner;
  serviceId: string;
  input: Record<string, unknown>;
  /** The most this call may cost, in the token's base units: a dearer offer is refused before anything is signed. */
  maxAmount: bigint;
  /** Retries of the same call (one intent) get the same job and pay nothing more. */
  idempotencyKey?: string;
  /** Default: the global `fetch`. */
  fetch?: typeof fetch;
}

export interface PaidJob {
  job: ExecutionJob;
  /** Reads this one job (its status, events, logs, telemetry): `Authorization: Bearer jt_…`. Shown once. */
  accessToken: string;
  /** The settlement transaction that paid for it. */
  transaction: string;
}

const authorizationTypes = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

interface Requirement {
  scheme: string;
  network: string;
  amount: string;
  asset: `0x${string}`;
  payTo: `0x${string}`;
  maxTimeoutSeconds: number;
  extra: { name?: string; version?: string };
}

const toBase64 = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));
const fromBase64 = (value: string) => new TextDecoder().decode(Uint8Array.from(atob(value), (c) => c.charCodeAt(0)));

async function apiError(response: Response, fallback: string): Promise<ExecutionApiError> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  const envelope = (body as { error?: { code?: string; message?: string; requestId?: string } } | null)?.error;
  const paid = response.headers.get("payment-response");
  const refusal = paid ? (JSON.parse(fromBase64(paid)) as { errorReason?: string }) : undefined;
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  return new ExecutionApiError({
    status: response.status,
    code: typeof envelope === "object" && envelope?.code ? envelope.code : "PAYMENT_REFUSED",
    message: envelope?.message ?? (refusal?.errorReason ? `The payment was refused: ${refusal.errorReason}` : fallback),
    requestId: envelope?.requestId ?? response.headers.get("x-request-id"),
    retryAfterSeconds: response.headers.has("retry-after") ? Number(response.headers.get("retry-after")) : null,
    details: refusal?.errorReason ? { errorReason: refusal.errorReason } : null,
    response: body,
    headers,
  });
}

/** Runs `serviceId` once, paid from `signer`'s wallet: the offer read, the authorization signed, the call sent again. */
export async function payPerCall(options: PayPerCallOptions): Promise<PaidJob> {
  const doFetch = options.fetch ?? fetch;
  const url = `${options.baseUrl.replace(/\/+$/, "")}/api/marketplace/services/${encodeURIComponent(options.serviceId)}/execute`;
  const body = JSON.stringify({ input: options.input });
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.idempotencyKey) headers["idempotency-key"] = options.idempotencyKey;

  const offer = await doFetch(url, { method: "POST", headers, body });
  const offered = offer.headers.get("payment-required");
  if (offer.status !== 402 || !offered) throw await apiError(offer, `HTTP ${offer.status}: no x402 offer`);
  const required = JSON.parse(fromBase64(offered)) as { resource: unknown; accepts: Requirement[] };
  const requirement = required.accepts.find((r) => r.scheme === "exact" && r.network.startsWith("eip155:"));
  if (!requirement?.extra.name || !requirement.extra.version)
    throw new ExecutionNetworkError("The server offers no x402 exact payment on an EVM chain.");
  if (BigInt(requirement.amount) > options.maxAmount)
    throw new ExecutionNetworkError(
      `The call costs ${requirement.amount} base units of ${requirement.asset}, more than maxAmount (${options.maxAmount}).`,
    );

  const now = BigInt(Math.floor(Date.now() / 1000));
  const message = {
    from: options.signer.address,
    to: requirement.payTo,
    value: BigInt(requirement.amount),
    validAfter: 0n,
    validBefore: now + BigInt(requirement.maxTimeoutSeconds),
    nonce:
      `0x${Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("")}` as const,
  };
  const signature = await options.signer.signTypedData({
    domain: {
      name: requirement.extra.name,
      version: requirement.extra.version,
      chainId: Number(requirement.network.slice("eip155:".length)),
      verifyingContract: requirement.asset,
    },
    types: authorizationTypes,
    primaryType: "TransferWithAuthorization",
    message,
  });
  const payment = {
    x402Version: 2,
    resource: required.resource,
    accepted: requirement,
    payload: {
      signature,
      authorization: {
        ...message,
        value: message.value.toString(),
        validAfter: message.validAfter.toString(),
        validBefore: message.validBefore.toString(),
      },
    },
  };
  const paid = await doFetch(url, {
    method: "POST",
    headers: { ...headers, "payment-signature": toBase64(JSON.stringify(payment)) },
    body,
  });
  if (paid.status !== 202) throw await apiError(paid, `HTTP ${paid.status}`);
  const { accessToken, ...job } = (await paid.json()) as ExecutionJob & { accessToken: string };
  const settled = paid.headers.get("payment-response");
  const transaction = settled ? (JSON.parse(fromBase64(settled)) as { transaction?: string }).transaction : undefined;
  return { job: job as ExecutionJob, accessToken, transaction: transaction ?? "" };
}
