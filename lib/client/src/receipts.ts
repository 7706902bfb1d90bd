// Verifying an execution receipt offline (CONTRACT §13): the digests of the job's input and result (SHA-256 of
// their RFC 8785 form), the receipt's other fields against the job, the EIP-712 signature over the contract's
// own domain and types (never the ones the receipt carries), and that its signer is one the caller trusts
// (GET /api/receipts/signers, fetched once and kept). No network call. The cryptography is audited libraries'
// (noble's Keccak-256 and secp256k1 recovery) and the server's own RFC 8785 package, never written here.
import { createHash } from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import canonicalize from "canonicalize";
import { ExecutionNetworkError } from "./errors.js";
import type { ExecutionJob } from "./types.js";

/** What a receipt states (integers are JSON numbers: all well within 2^53). */
export interface ReceiptMessage {
  issuer: string;
  jobId: string;
  serviceId: string;
  developer: string;
  inputDigest: string;
  resultDigest: string;
  nodeId: string;
  ownNode: boolean;
  attempt: number;
  creditCost: number;
  startedAt: number;
  completedAt: number;
}

/** `GET /api/developers/jobs/:jobId/receipt` (and the job.completed webhook's `data.receipt`). */
export interface ExecutionReceipt {
  domain: { name: "Execution Network"; version: "1" };
  types: { ExecutionReceipt: readonly { name: string; type: string }[] };
  primaryType: "ExecutionReceipt";
  message: ReceiptMessage;
  signature: string;
  signer: string;
}

/** `GET /api/receipts/signers`. */
export interface ReceiptSigners {
  current: string;
  previous: string[];
}

/** Which check failed: the input's or the result's digest, a field against the job, the signature, or the signer. */
export type ReceiptCheck = "input-digest" | "result-digest" | "job-mismatch" | "signature" | "untrusted-signer";

export class ReceiptVerificationError extends ExecutionNetworkError {
  override readonly name: string = "ReceiptVerificationError";
  constructor(
    readonly check: ReceiptCheck,
    message: string,
    /** For `job-mismatch`: the message field that is not the job's. */
    readonly field?: keyof ReceiptMessage,
  ) {
    super(message);
  }
}

export interface VerifyReceiptOptions {
  /** The addresses to trust: `GET /api/receipts/signers`, or its `current` and `previous` as one list. */
  signers: ReceiptSigners | readonly string[];
}

const fields: [keyof ReceiptMessage, string][] = [
  ["issuer", "string"],
  ["jobId", "string"],
  ["serviceId", "string"],
  ["developer", "address"],
  ["inputDigest", "bytes32"],
  ["resultDigest", "bytes32"],
  ["nodeId", "string"],
  ["ownNode", "bool"],
  ["attempt", "uint32"],
  ["creditCost", "uint64"],
  ["startedAt", "uint64"],
  ["completedAt", "uint64"],
];

/** SHA-256 of the RFC 8785 form of `value`, as a receipt states it: `0x` and 64 lowercase hex digits. */
export function receiptDigest(value: unknown): string {
  // No JSON form (undefined) digests as null, as before.
  return `0x${createHash("sha256")
    .update(canonicalize(value) ?? "null")
    .digest("hex")}`;
}

const keccak = (...parts: Uint8Array[]) => keccak_256(Buffer.concat(parts));
const utf8 = (text: string) => Buffer.from(text, "utf8");
const hexBytes = (hex: string, length: number) => {
  if (!new RegExp(`^0x[0-9a-fA-F]{${length * 2}}$`).test(hex)) throw new TypeError(`not ${length} bytes of hex`);
  return Buffer.from(hex.slice(2), "hex");
};
const word = (value: bigint) => Buffer.from(value.toString(16).padStart(64, "0"), "hex");

/** One member of the struct as EIP-712 encodes it (32 bytes). */
function encodeField(type: string, value: unknown): Uint8Array {
  if (type === "string") {
    if (typeof value !== "string") throw new TypeError("not a string");
    return keccak(utf8(value));
  }
  if (type === "address") return Buffer.concat([Buffer.alloc(12), hexBytes(String(value), 20)]);
  if (type === "bytes32") return hexBytes(String(value), 32);
  if (type === "bool") {
    if (typeof value !== "boolean") throw new TypeError("not a boolean");
    return word(value ? 1n : 0n);
  }
  const bits = Number(type.slice(4));
  if (!Number.isSafeInteger(value) || (value as number) < 0 || BigInt(value as number) >= 1n << BigInt(bits))
    throw new TypeError(`not a ${type}`);
  return word(BigInt(value as number));
}

const structType = `ExecutionReceipt(${fields.map(([name, type]) => `${type} ${name}`).join(",")})`;
const domainSeparator = keccak(
  keccak(utf8("EIP712Domain(string name,string version)")),
  keccak(utf8("Execution Network")),
  keccak(utf8("1")),
);

/** The EIP-712 digest the deployment signs for `message`; throws TypeError when a member does not encode. */
function typedDataDigest(message: ReceiptMessage): Uint8Array {
  const struct = keccak(keccak(utf8(structType)), ...fields.map(([name, type]) => encodeField(type, message[name])));
  return keccak(Uint8Array.of(0x19, 0x01), domainSeparator, struct);
}

/**
 * The address that made `signature` (65 bytes r‖s‖v, v 27/28 or 0/1) over the 32-byte `digest`, lowercase;
 * null when the signature is malformed or recovers no point.
 */
function recoverAddress(digest: Uint8Array, signature: Uint8Array): string | null {
  const v = signature[64]! >= 27 ? signature[64]! - 27 : signature[64]!;
  if (v !== 0 && v !== 1) return null;
  try {
    const publicKey = secp256k1.Signature.fromCompact(signature.subarray(0, 64))
      .addRecoveryBit(v)
      .recoverPublicKey(digest)
      .toRawBytes(false);
    // The address: the last 20 bytes of the Keccak-256 of the uncompressed key without its 0x04 prefix.
    return `0x${Buffer.from(keccak(publicKey.subarray(1)).subarray(12)).toString("hex")}`;
  } catch {
    return null;
  }
}

const millis = (iso: string | null) => (iso === null ? null : Date.parse(iso));

/**
 * Checks `receipt` against `job` (as `getJob` returns it) and the signers you trust, offline. Returns the
 * receipt's message; throws ReceiptVerificationError naming the check that failed.
 */
export function verifyReceipt(
  job: ExecutionJob,
  receipt: ExecutionReceipt,
  options: VerifyReceiptOptions,
): ReceiptMessage {
  const { message } = receipt;
  if (message.inputDigest !== receiptDigest(job.input))
    throw new ReceiptVerificationError(
      "input-digest",
      "The digest of the job's input is not the receipt's inputDigest.",
    );
  if (message.resultDigest !== receiptDigest(job.result))
    throw new ReceiptVerificationError(
      "result-digest",
      "The digest of the job's result is not the receipt's resultDigest.",
    );
  const expected: [keyof ReceiptMessage, unknown][] = [
    ["jobId", job.jobId],
    ["serviceId", job.serviceId],
    ["nodeId", job.assignedNode?.nodeId ?? null],
    ["attempt", job.attempt],
    ["creditCost", job.creditCost],
    ["startedAt", millis(job.startedAt)],
    ["completedAt", millis(job.completedAt)],
  ];
  for (const [field, value] of expected) {
    if (message[field] !== value)
      throw new ReceiptVerificationError("job-mismatch", `The receipt's ${field} is not the job's.`, field);
  }
  let signer: string | null;
  try {
    signer = recoverAddress(typedDataDigest(message), hexBytes(receipt.signature, 65));
  } catch {
    signer = null;
  }
  if (signer === null || signer !== receipt.signer.toLowerCase())
    throw new ReceiptVerificationError("signature", `The signature is not ${receipt.signer}'s over this receipt.`);
  const trusted = Array.isArray(options.signers)
    ? options.signers
    : [(options.signers as ReceiptSigners).current, ...(options.signers as ReceiptSigners).previous];
  if (!trusted.some((address) => address.toLowerCase() === signer))
    throw new ReceiptVerificationError("untrusted-signer", `${receipt.signer} is not one of the signers you trust.`);
  return message;
}
