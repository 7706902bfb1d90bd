// The precomputed receipt digest is EIP-712's for CONTRACT §13's types: the same digest and signature as viem's
// hashTypedData and signTypedData, over types written out here by hand rather than imported. The signing account
// is the deployment's (libsecp256k1), checked against viem's own (@noble/curves).
import { hashTypedData, recoverTypedDataAddress, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import type { ReceiptMessage } from "@/lib/contract/receipts";
import { receiptSigningAccountOf, signsNatively } from "@/lib/domain/receipt-signers";
import { javascriptKeccak, nativeKeccak, receiptSigningHash, signReceipt, type Keccak } from "./receipt-signing";

const domain = { name: "Execution Network", version: "1" } as const;
const types = {
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

const digest = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as Hex;
const messages: ReceiptMessage[] = [
  {
    issuer: "http://localhost:3000",
    jobId: "5f0c1f8e-2b1a-4c43-9a8e-1f2d3c4b5a69",
    serviceId: "token-count",
    developer: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    inputDigest: digest(1),
    resultDigest: digest(2),
    nodeId: "a3d0e4c2-7f11-4e0b-8a6e-0c9b8d7e6f50",
    ownNode: false,
    attempt: 1,
    creditCost: 3,
    startedAt: 1_764_300_000_000,
    completedAt: 1_764_300_000_123,
  },
  {
    issuer: "https://exécution.example/",
    jobId: "",
    serviceId: "summarize ✓",
    developer: "0x0000000000000000000000000000000000000001",
    inputDigest: digest(0xdead),
    resultDigest: digest(0xbeef),
    nodeId: "node",
    ownNode: true,
    attempt: 4_294_967_295,
    creditCost: Number.MAX_SAFE_INTEGER,
    startedAt: 0,
    completedAt: 1,
  },
];
const typed = (m: ReceiptMessage) => ({
  domain,
  types,
  primaryType: "ExecutionReceipt" as const,
  message: {
    ...m,
    creditCost: BigInt(m.creditCost),
    startedAt: BigInt(m.startedAt),
    completedAt: BigInt(m.completedAt),
  },
});
const key = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const viemAccount = privateKeyToAccount(key);
const account = receiptSigningAccountOf(key);

// Both keccak256s the server may hash with: viem's everywhere, OpenSSL's where Node has it (Node 24).
const keccaks: [string, Keccak][] = [["JavaScript", javascriptKeccak]];
if (nativeKeccak) keccaks.push(["OpenSSL", nativeKeccak]);

describe("a receipt's signing digest", () => {
  it.each(keccaks.flatMap(([by, hash]) => messages.map((m) => [m.serviceId, by, hash, m] as const)))(
    "is EIP-712's for the contract's types (%s, keccak256 by %s)",
    (_, __, hash, m) => {
      expect(receiptSigningHash(m, hash)).toBe(hashTypedData(typed(m)));
    },
  );

  it.runIf(Number(process.versions.node.split(".")[0]) >= 24)("is hashed by OpenSSL on Node 24", () => {
    expect(nativeKeccak).not.toBeNull();
    expect(receiptSigningHash(messages[0])).toBe(receiptSigningHash(messages[0], javascriptKeccak));
  });

  it("changes with every member of the message", () => {
    const [base, other] = messages;
    for (const name of Object.keys(base) as (keyof ReceiptMessage)[])
      expect(receiptSigningHash({ ...base, [name]: other[name] }), name).not.toBe(receiptSigningHash(base));
  });

  it.each(keccaks)("stays EIP-712's past the bound of the member hashes it keeps (keccak256 by %s)", (_, hash) => {
    const [base] = messages;
    for (let i = 0; i < 1_100; i++) {
      const m = { ...base, serviceId: `service ${i}`, nodeId: `node ${i % 7}` };
      expect(receiptSigningHash(m, hash)).toBe(hashTypedData(typed(m)));
    }
    expect(receiptSigningHash(base, hash)).toBe(hashTypedData(typed(base)));
  });

  it("is signed by libsecp256k1 as signTypedData signs it, and recovers to the signer", async () => {
    expect(await signsNatively()).toBe(true);
    expect(account.address).toBe(viemAccount.address);
    // Enough signatures to see both recovery ids (v 27 and 28).
    const signed = new Set<string>();
    for (const m of [...messages, ...Array.from({ length: 30 }, (_, i) => ({ ...messages[0], creditCost: i }))]) {
      const receipt = await signReceipt(account, m);
      signed.add(receipt.signature.slice(-2));
      expect(receipt.signature).toBe(await viemAccount.signTypedData(typed(m)));
      expect(await recoverTypedDataAddress({ ...typed(m), signature: receipt.signature })).toBe(account.address);
      expect(receipt).toMatchObject({ signer: account.address, primaryType: "ExecutionReceipt", message: m });
    }
    expect([...signed].sort()).toEqual(["1b", "1c"]);
  });
});
