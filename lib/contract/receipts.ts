// Execution receipts (CONTRACT §13): the EIP-712 domain and types a deployment signs a completed job with,
// the digests of its input and result, and the check of a receipt against a job and a list of signers. Shared
// by the server (which issues receipts) and the job page (which verifies them in the browser): viem only.
import canonicalize from "canonicalize";
import { isAddressEqual, sha256, stringToBytes, verifyTypedData, type Address, type Hex } from "viem";

export const receiptDomain = { name: "Execution Network", version: "1" } as const;

export const receiptTypes = {
  ExecutionReceipt: [
    { name: "issuer", type: "string" },
    { name: "jobId", type: "string" },
    { name: "serviceId", type: "string" },
    { name: "developer", type: "address" },
    { name: "inputDigest", type: "bytes32" },
    { name: "resultDigest", type: "bytes32" },
    { name: "nodeId", type: "string" },
    { name: "ownNode", type: "bool" },
    { name: "attempt", type: "uint32" },
    { name: "creditCost", type: "uint64" },
    { name: "startedAt", type: "uint64" },
    { name: "completedAt", type: "uint64" },
  ],
} as const;

export const receiptPrimaryType = "ExecutionReceipt";

/** What a receipt states, in the order of its type; integers are JSON numbers (all well within 2^53). */
export interface ReceiptMessage {
  issuer: string;
  jobId: string;
  serviceId: string;
  developer: Address;
  inputDigest: Hex;
  resultDigest: Hex;
  nodeId: string;
  ownNode: boolean;
  attempt: number;
  creditCost: number;
  startedAt: number;
  completedAt: number;
}

/** A receipt as the API answers it: viem's verifyTypedData arguments, plus the address that signed. */
export interface Receipt {
  domain: typeof receiptDomain;
  types: typeof receiptTypes;
  primaryType: typeof receiptPrimaryType;
  message: ReceiptMessage;
  signature: Hex;
  signer: Address;
}

/**
 * A receipt's stored form (job_receipts.body): its JSON without what every receipt of domain version "1" shares
 * (domain, types, primaryType), about half of it. `receiptJson` puts that back byte for byte as JSON.stringify
 * writes the whole receipt, so the answer is the same bytes whichever form a row holds (rows stored whole, as
 * before this form, start with `{"domain"` and are answered as they are). The shared part is of version "1":
 * were the domain or types ever to change, this prefix must stay as it is for the rows already stored.
 */
const sharedReceiptPrefix = `${JSON.stringify({ domain: receiptDomain, types: receiptTypes, primaryType: receiptPrimaryType }).slice(0, -1)},`;
const storedFormStart = '{"message":';

export function storedReceipt(receipt: Receipt): string {
  const { message, signature, signer } = receipt;
  return JSON.stringify({ message, signature, signer });
}

/** The receipt's JSON, as the API answers it, from its stored form. */
export function receiptJson(stored: string): string {
  return stored.startsWith(storedFormStart) ? sharedReceiptPrefix + stored.slice(1) : stored;
}

/** The message as viem types it: uint64 members as bigint (the wire has JSON numbers). */
export const typedReceiptMessage = (message: ReceiptMessage) => ({
  ...message,
  creditCost: BigInt(message.creditCost),
  startedAt: BigInt(message.startedAt),
  completedAt: BigInt(message.completedAt),
});

/**
 * SHA-256 of the RFC 8785 (JCS) form of `value`: `0x` and 64 lowercase hex digits. `hash` is viem's SHA-256 unless
 * given (the server passes OpenSSL's: the same digest, native).
 */
export function receiptDigest(value: unknown, hash: (bytes: Uint8Array) => Hex = sha256): Hex {
  const canonical = canonicalize(value);
  if (canonical === undefined) throw new Error("A receipt digest needs a JSON value.");
  return hash(stringToBytes(canonical));
}

/** The job as a receipt needs it: the fields of ExecutionJob it states. */
export interface ReceiptedJob {
  jobId: string;
  serviceId: string;
  input: unknown;
  result: unknown;
  attempt: number;
  creditCost: number;
  startedAt: string | null;
  completedAt: string | null;
  assignedNode: { nodeId: string } | null;
}

/** Which check a receipt failed (the client library's ReceiptVerificationError has the same names). */
export type ReceiptCheck = "input-digest" | "result-digest" | "job-mismatch" | "signature" | "untrusted-signer";

export type ReceiptVerdict = { ok: true; signer: Address } | { ok: false; check: ReceiptCheck; detail: string };

const millis = (iso: string | null) => (iso === null ? null : Date.parse(iso));

/**
 * Checks a receipt offline: the digests of the job's input and result, the message's other fields against the
 * job, the signature over the contract's own domain and types (never the ones the receipt carries), and that
 * the signer is one of `signers`.
 */
export async function verifyReceiptFor(
  job: ReceiptedJob,
  receipt: Receipt,
  signers: readonly string[],
): Promise<ReceiptVerdict> {
  const { message } = receipt;
  if (message.inputDigest !== receiptDigest(job.input))
    return { ok: false, check: "input-digest", detail: "The input's digest is not the receipt's." };
  if (message.resultDigest !== receiptDigest(job.result))
    return { ok: false, check: "result-digest", detail: "The result's digest is not the receipt's." };
  const expected: [string, unknown, unknown][] = [
    ["jobId", message.jobId, job.jobId],
    ["serviceId", message.serviceId, job.serviceId],
    ["nodeId", message.nodeId, job.assignedNode?.nodeId ?? null],
    ["attempt", message.attempt, job.attempt],
    ["creditCost", message.creditCost, job.creditCost],
    ["startedAt", message.startedAt, millis(job.startedAt)],
    ["completedAt", message.completedAt, millis(job.completedAt)],
  ];
  const mismatch = expected.find(([, stated, actual]) => stated !== actual);
  if (mismatch) return { ok: false, check: "job-mismatch", detail: `The receipt's ${mismatch[0]} is not the job's.` };
  // A tampered message may not even encode (a fraction in a uint): that is a bad signature too.
  const valid = await Promise.resolve()
    .then(() =>
      verifyTypedData({
        address: receipt.signer,
        domain: receiptDomain,
        types: receiptTypes,
        primaryType: receiptPrimaryType,
        message: typedReceiptMessage(message),
        signature: receipt.signature,
      }),
    )
    .catch(() => false);
  if (!valid) return { ok: false, check: "signature", detail: "The signature is not the signer's over this message." };
  if (!signers.some((s) => isAddressEqual(s as Address, receipt.signer)))
    return { ok: false, check: "untrusted-signer", detail: `${receipt.signer} is not one of the trusted signers.` };
  return { ok: true, signer: receipt.signer };
}
