// Pay per call (CONTRACT §15): one settlement that can never be mined must not hold the settler's nonce sequence,
// and with it every later payment (review of issue 45, M1). A settlement replaced the most times before its
// authorization expired was only rebroadcast, never filled; a payer's gas-burning contract wallet could make one
// the settler cannot pay for. Nor may a use of an authorization in a block packed with the token's logs (M2): its
// look-up asks for the payer's logs only. On ganache with the EIP-3009 token, behind a relay the tests fault.
import { afterAll, beforeAll, expect, it } from "vitest";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { keccak256, parseTransaction, toEventSelector, type Address, type Hex } from "viem";
import { eq } from "drizzle-orm";
import { x402Payments, x402Settlers } from "@/lib/db/schema";
import { db } from "@/lib/domain/database";
import { x402Config } from "@/lib/env";
import { movedToTreasury } from "@/lib/payments/x402/chain";
import { eventually } from "../support/jobs";
import {
  officialPayment,
  paymentPayload,
  price,
  signedAuthorization,
  startX402,
  submitAuthorization,
  type X402World,
} from "../support/x402";

let world: X402World;

beforeAll(async () => {
  // A settlement not mined is replaced every second or so: five replacements well before a validBefore 12 s away.
  world = await startX402({ PAYMENTS_SETTLEMENT_TIMEOUT_MS: "1000", X402_RATE_PER_MINUTE: "0" });
}, 90_000);

afterAll(async () => {
  await world?.close();
});

const execute = (headers: Record<string, string> = {}) =>
  fetch(`${world.server.baseUrl}/api/marketplace/services/token-count/execute`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ input: { text: "wedge" } }),
  });

async function offer(): Promise<PaymentRequired> {
  const res = await execute();
  expect(res.status).toBe(402);
  return decodePaymentRequiredHeader(res.headers.get("payment-required") ?? "");
}

const rowOf = async (from: Address) =>
  (await (await db()).select().from(x402Payments).where(eq(x402Payments.fromAddress, from)))[0];

const settlerNonce = async () =>
  (
    await (
      await db()
    )
      .select({ nextNonce: x402Settlers.nextNonce })
      .from(x402Settlers)
      .where(eq(x402Settlers.address, world.settler))
  )[0]?.nextNonce ?? 0;

/** The signature's r: it appears in our settlement's calldata only. */
const markOf = (header: string) => paymentPayload(header).signature.slice(2, 66).toLowerCase();

it("a settlement whose gas is above the bound is refused (402) before any nonce is taken", async () => {
  const { chain, rpc } = world;
  const required = await offer();
  const payer = await chain.newAccount();
  const header = await signedAuthorization(chain, payer, required.accepts[0]);
  const mark = markOf(header);
  const before = await settlerNonce();
  // A contract wallet whose signature check burns gas: the estimate of its settlement is 2 M.
  rpc.beforeForwarding("eth_estimateGas", async (params) =>
    JSON.stringify(params).toLowerCase().includes(mark) ? { answer: "0x1e8480" } : undefined,
  );
  try {
    const res = await execute({ "payment-signature": header });
    expect(res.status).toBe(402);
  } finally {
    rpc.beforeForwarding("eth_estimateGas");
  }
  expect(await settlerNonce()).toBe(before);
  const row = await rowOf(payer.address);
  expect(row.status).toBe("failed");
  expect(row.failureReason).toBe("settlement_failed");
  expect(row.settlementTxHash).toBeNull();
});

it("a settlement the settler cannot pay the gas of is refused (503) before any nonce is taken", async () => {
  const { chain, rpc, settler } = world;
  const required = await offer();
  const payer = await chain.newAccount();
  const header = await officialPayment(chain, payer, required);
  const before = await settlerNonce();
  rpc.beforeForwarding("eth_getBalance", async (params) =>
    String(params[0]).toLowerCase() === settler.toLowerCase() ? { answer: "0x1" } : undefined,
  );
  try {
    const res = await execute({ "payment-signature": header });
    expect(res.status).toBe(503);
  } finally {
    rpc.beforeForwarding("eth_getBalance");
  }
  expect(await settlerNonce()).toBe(before);
  const row = await rowOf(payer.address);
  expect(row.status).toBe("failed");
  expect(row.settlementTxHash).toBeNull();
  // Nothing was sent: the same authorization pays once the settler can.
  expect((await execute({ "payment-signature": header })).status).toBe(202);
});

it("a settlement replaced the most times is filled once the chain is past its validBefore; the next one settles", async () => {
  const { chain, rpc } = world;
  const required = await offer();
  const [a, b] = await Promise.all([chain.newAccount(), chain.newAccount()]);
  const paysA = await signedAuthorization(chain, a, required.accepts[0], {
    validBefore: BigInt(Math.floor(Date.now() / 1000)) + 12n,
  });
  const mark = markOf(paysA);
  // A's settlements (any fee) never reach the node: answered as taken, as a node that evicts them would.
  rpc.beforeForwarding("eth_sendRawTransaction", async (params) => {
    const raw = String(params[0]) as Hex;
    return parseTransaction(raw).data?.toLowerCase().includes(mark) ? { answer: keccak256(raw) } : undefined;
  });
  const ticking = setInterval(() => void chain.mine().catch(() => undefined), 1_000);
  try {
    expect((await execute({ "payment-signature": paysA })).status).toBe(503);
    // B's settlement takes the next nonce, behind A's.
    const resB = await execute({ "payment-signature": await officialPayment(chain, b, required) });
    expect([202, 503]).toContain(resB.status);
    const rowA = await eventually(
      () => rowOf(a.address),
      (row) => row?.status === "failed",
      40_000,
    );
    expect(rowA.failureReason).toBe("settlement_failed");
    // The cap was reached before validBefore: five fee replacements, then the filler.
    expect(rowA.replacedTxHashes.length).toBeGreaterThan(5);
    const rowB = await eventually(
      () => rowOf(b.address),
      (row) => row?.status === "settled",
      20_000,
    );
    expect(rowB.settlerNonce).toBe((rowA.settlerNonce ?? 0) + 1);
  } finally {
    clearInterval(ticking);
    rpc.beforeForwarding("eth_sendRawTransaction");
  }
}, 90_000);

it("a use in a block whose token logs the RPC will not list at once is looked up by the payer's logs only", async () => {
  const { chain, rpc } = world;
  const required = await offer();
  const [payer, other] = await Promise.all([chain.newAccount(), chain.newAccount()]);
  const header = await signedAuthorization(chain, payer, required.accepts[0]);
  // Used by a third party in one batch with another payer's: the block holds others' token logs too.
  const txHash = await submitAuthorization(chain, await signedAuthorization(chain, other, required.accepts[0]), header);
  const receipt = await chain.publicClient.getTransactionReceipt({ hash: txHash });
  const usedTopic = toEventSelector("AuthorizationUsed(address,bytes32)");
  const used = receipt.logs.find(
    (log) => log.topics[0] === usedTopic && log.topics[1]?.toLowerCase().endsWith(payer.address.slice(2).toLowerCase()),
  );
  if (!used) throw new Error("the payer's AuthorizationUsed log is not in the receipt");
  const use = {
    transactionHash: txHash,
    blockNumber: receipt.blockNumber,
    blockHash: receipt.blockHash,
    logIndex: used.logIndex,
  };
  const config = x402Config();
  if (!config) throw new Error("x402 is not configured in this file's server");
  // The RPC refuses a block's logs unless the query names the payer (as one over its result cap would).
  rpc.beforeForwarding("eth_getLogs", async (params) => {
    const { blockHash, topics } = params[0] as { blockHash?: string; topics?: unknown[] };
    if (blockHash && !(topics && topics.length >= 2))
      return { error: { code: -32005, message: "query returned more than 10000 results" } };
  });
  try {
    const { authorization } = paymentPayload(header);
    const proxied = { ...config, rpcUrl: rpc.url };
    expect(await movedToTreasury(proxied, use, payer.address, authorization.nonce, price)).toBe(true);
    // Another value than the one its Transfer moved: not this payment.
    expect(await movedToTreasury(proxied, use, payer.address, authorization.nonce, price + 1n)).toBe(false);
  } finally {
    rpc.beforeForwarding("eth_getLogs");
  }
});
