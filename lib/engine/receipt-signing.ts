// Signing a receipt's EIP-712 digest (CONTRACT §13) without viem's per-call work: hashTypedData validates the
// types and hashes the domain and the type string again for every signature, though all three are fixed. Here
// they are hashed once, the struct is laid out by hand (ABI words, no encoder), the keccak256 of the string
// members that repeat from job to job (issuer, service, node) is kept, and each receipt costs its struct hash and
// one secp256k1 signature (RFC 6979, so the signature is the one signTypedData gives; receipt-signing.test.ts
// checks both against viem). keccak256 is OpenSSL's where Node has it (OpenSSL 3.2 and later: Node 24), else
// viem's in JavaScript (@noble/hashes): the same bytes, but a fresh server spends its first receipts compiling
// that JavaScript, and every later one running it.
import { createHash, getHashes } from "node:crypto";
import { bytesToHex, concat, hexToBytes, keccak256, stringToBytes, stringToHex, type Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import {
  receiptDomain,
  receiptPrimaryType,
  receiptTypes,
  type Receipt,
  type ReceiptMessage,
} from "@/lib/contract/receipts";

/** keccak256 of some bytes, as bytes. */
export type Keccak = (bytes: Uint8Array) => Uint8Array;
export const javascriptKeccak: Keccak = (bytes) => keccak256(bytes, "bytes");
/** OpenSSL's keccak256, or null where this Node's OpenSSL has none. */
export const nativeKeccak: Keccak | null = getHashes().includes("keccak-256")
  ? (bytes) => createHash("keccak-256").update(bytes).digest()
  : null;
const keccak: Keccak = nativeKeccak ?? javascriptKeccak;

const fields = receiptTypes[receiptPrimaryType];
const hashOfText = (text: string) => keccak256(stringToHex(text));

/** EIP-712's domain separator for the contract's domain (name and version only). */
const domainSeparator = hexToBytes(
  keccak256(
    concat([
      hashOfText("EIP712Domain(string name,string version)"),
      hashOfText(receiptDomain.name),
      hashOfText(receiptDomain.version),
    ]),
  ),
);

const typeHash = hexToBytes(hashOfText(`${receiptPrimaryType}(${fields.map((f) => `${f.type} ${f.name}`).join(",")})`));

/** String members whose keccak256 is kept: they repeat across a deployment's receipts (jobId never does). */
const repeating = new Set<string>(["issuer", "serviceId", "nodeId"]);
/** Bounded: a deployment has one issuer and few services and nodes; past this, the oldest hash is dropped. */
const keptHashes = 1_000;
const stringHashes = new Map<string, Uint8Array>();

function stringHash(name: string, text: string, hash: Keccak): Uint8Array {
  if (!repeating.has(name)) return hash(stringToBytes(text));
  let kept = stringHashes.get(text);
  if (kept === undefined) {
    kept = hash(stringToBytes(text));
    if (stringHashes.size >= keptHashes) stringHashes.delete(stringHashes.keys().next().value as string);
    stringHashes.set(text, kept);
  }
  return kept;
}

/** `bytes` as the 32-byte ABI word at `offset` of `out`, right-aligned (an address) or filling it (bytes32). */
function putBytes(out: Uint8Array, offset: number, value: Hex, length: number, name: string) {
  const bytes = hexToBytes(value);
  if (bytes.length !== length) throw new Error(`Receipt member ${name} is not ${length} bytes.`);
  out.set(bytes, offset + 32 - length);
}

const maxOf = { uint32: 0xffff_ffff, uint64: Number.MAX_SAFE_INTEGER } as const;

/**
 * The digest EIP-712 signs for a receipt's message: what viem's hashTypedData gives for the contract's types
 * (`hash`: the keccak256 used, OpenSSL's where Node has it).
 */
export function receiptSigningHash(message: ReceiptMessage, hash: Keccak = keccak): Hex {
  const struct = new Uint8Array(32 * (1 + fields.length));
  const words = new DataView(struct.buffer);
  struct.set(typeHash, 0);
  fields.forEach((field, i) => {
    const offset = 32 * (i + 1);
    const value = message[field.name];
    switch (field.type) {
      case "string":
        struct.set(stringHash(field.name, value as string, hash), offset);
        break;
      case "address":
        putBytes(struct, offset, value as Hex, 20, field.name);
        break;
      case "bytes32":
        putBytes(struct, offset, value as Hex, 32, field.name);
        break;
      case "bool":
        struct[offset + 31] = value ? 1 : 0;
        break;
      case "uint32":
      case "uint64": {
        const n = value as number;
        if (!Number.isSafeInteger(n) || n < 0 || n > maxOf[field.type])
          throw new Error(`Receipt member ${field.name} is not a ${field.type}: ${n}.`);
        words.setBigUint64(offset + 24, BigInt(n));
        break;
      }
    }
  });
  const digest = new Uint8Array(2 + 32 + 32);
  digest.set([0x19, 0x01], 0);
  digest.set(domainSeparator, 2);
  digest.set(hash(struct), 34);
  return bytesToHex(hash(digest));
}

/** The receipt of `message`, signed by `signer`. */
export async function signReceipt(signer: PrivateKeyAccount, message: ReceiptMessage): Promise<Receipt> {
  const signature = await signer.sign({ hash: receiptSigningHash(message) });
  return {
    domain: receiptDomain,
    types: receiptTypes,
    primaryType: receiptPrimaryType,
    message,
    signature,
    signer: signer.address,
  };
}
