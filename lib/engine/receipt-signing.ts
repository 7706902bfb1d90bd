// Signing a receipt's EIP-712 digest (CONTRACT §13) without viem's per-call work: hashTypedData validates the
// types and hashes the domain and the type string again for every signature, though all three are fixed. Here
// they are hashed once and each receipt costs its struct hash and one secp256k1 signature (RFC 6979, so the
// signature is the one signTypedData gives; receipt-signing.test.ts checks both against viem).
import { concat, encodeAbiParameters, keccak256, stringToHex, type Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import {
  receiptDomain,
  receiptPrimaryType,
  receiptTypes,
  typedReceiptMessage,
  type Receipt,
  type ReceiptMessage,
} from "@/lib/contract/receipts";

const fields = receiptTypes[receiptPrimaryType];
const hashOfText = (text: string) => keccak256(stringToHex(text));

/** EIP-712's domain separator for the contract's domain (name and version only). */
const domainSeparator = keccak256(
  encodeAbiParameters(
    [{ type: "bytes32" }, { type: "bytes32" }, { type: "bytes32" }],
    [
      hashOfText("EIP712Domain(string name,string version)"),
      hashOfText(receiptDomain.name),
      hashOfText(receiptDomain.version),
    ],
  ),
);

/** The type hash, and the struct's ABI layout: a string member is encoded as its keccak256. */
const typeHash = hashOfText(`${receiptPrimaryType}(${fields.map((f) => `${f.type} ${f.name}`).join(",")})`);
const layout = [{ type: "bytes32" }, ...fields.map((f) => ({ type: f.type === "string" ? "bytes32" : f.type }))];

/** The digest EIP-712 signs for a receipt's message: what viem's hashTypedData gives for the contract's types. */
export function receiptSigningHash(message: ReceiptMessage): Hex {
  const typed = typedReceiptMessage(message) as Record<string, unknown>;
  const values = fields.map((f) => (f.type === "string" ? hashOfText(typed[f.name] as string) : typed[f.name]));
  const structHash = keccak256(encodeAbiParameters(layout, [typeHash, ...values]));
  return keccak256(concat(["0x1901", domainSeparator, structHash]));
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
