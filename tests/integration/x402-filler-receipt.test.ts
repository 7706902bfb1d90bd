// Pay per call (CONTRACT §15): the request takes only its own settlement's receipt. viem's
// waitForTransactionReceipt follows a transaction that replaces the one it waits for (same sender, same nonce) and
// resolves with the replacement's receipt; the sweep's filler (a 0-value transfer from the settler to itself, status
// 1) is such a transaction. Taken as the settlement's, it answered 202, created the job and credited the payment
// though no token moved (review of issue 45, H1). On ganache with the EIP-3009 token, behind a relay standing for a
// node that keeps the settlement in its pool and never mines it.
import { afterAll, beforeAll, expect, it } from "vitest";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { keccak256, parseTransaction, toHex, type Hex } from "viem";
import { eq } from "drizzle-orm";
import { jobs, topUps, x402Payments } from "@/lib/db/schema";
import { db } from "@/lib/domain/database";
import { eventually } from "../support/jobs";
import { paymentPayload, signedAuthorization, startX402, tokenBalance, type X402World } from "../support/x402";

let world: X402World;

beforeAll(async () => {
  // The sweep looks at a settling row 3 s after it was recorded: while the request still waits for its receipt.
  world = await startX402({ PAYMENTS_SETTLEMENT_TIMEOUT_MS: "3000", X402_RATE_PER_MINUTE: "0" });
}, 90_000);

afterAll(async () => {
  await world?.close();
});

it("a filler at the settlement's nonce is not the settlement: 503, then failed by the sweep, no job, no credit", async () => {
  const { chain, rpc, server, settler } = world;
  const url = `${server.baseUrl}/api/marketplace/services/token-count/execute`;
  const post = (headers: Record<string, string> = {}) =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ input: { text: "free lunch" } }),
    });
  const offer = await post();
  expect(offer.status).toBe(402);
  const required = decodePaymentRequiredHeader(offer.headers.get("payment-required") ?? "");
  const payer = await chain.newAccount();
  // validBefore 2 s away: the chain's time passes it while the settlement waits in the pool.
  const header = await signedAuthorization(chain, payer, required.accepts[0], {
    validBefore: BigInt(Math.floor(Date.now() / 1000)) + 2n,
  });
  const mark = paymentPayload(header).signature.slice(2, 66).toLowerCase();
  // The settlement (any fee) is answered as taken and shown pending, never mined; the first send answers after
  // 2.5 s (a slow RPC), so the request starts waiting when the sweep already looks at the row.
  const pending = new Map<string, Record<string, unknown>>();
  let slowed = false;
  rpc.beforeForwarding("eth_sendRawTransaction", async (params) => {
    const raw = String(params[0]) as Hex;
    const tx = parseTransaction(raw);
    if (!tx.data?.toLowerCase().includes(mark)) return;
    const hash = keccak256(raw);
    pending.set(hash, {
      hash,
      from: settler,
      to: tx.to,
      nonce: toHex(tx.nonce ?? 0),
      input: tx.data,
      value: "0x0",
      gas: toHex(tx.gas ?? 0n),
      maxFeePerGas: toHex(tx.maxFeePerGas ?? 0n),
      maxPriorityFeePerGas: toHex(tx.maxPriorityFeePerGas ?? 0n),
      type: "0x2",
      chainId: toHex(chain.chainId),
      blockHash: null,
      blockNumber: null,
      transactionIndex: null,
      v: "0x0",
      r: "0x1",
      s: "0x1",
      yParity: "0x0",
      accessList: [],
    });
    if (!slowed) {
      slowed = true;
      await new Promise((r) => setTimeout(r, 2_500));
    }
    return { answer: hash };
  });
  rpc.beforeForwarding("eth_getTransactionByHash", async (params) => {
    const known = pending.get(String(params[0]).toLowerCase());
    return known ? { answer: known } : undefined;
  });
  const [payerBefore, treasuryBefore] = await Promise.all([
    tokenBalance(chain, payer.address),
    tokenBalance(chain, chain.treasury),
  ]);
  const ticking = setInterval(() => void chain.mine().catch(() => undefined), 1_000);
  try {
    const res = await post({ "payment-signature": header });
    expect(res.status).toBe(503);
    // The sweep fills the nonce (the authorization expired unused) and fails the payment: nothing moved.
    const row = await eventually(
      async () =>
        (await (await db()).select().from(x402Payments).where(eq(x402Payments.fromAddress, payer.address)))[0],
      (r) => r?.status === "failed",
      30_000,
    );
    expect(row.failureReason).toBe("settlement_failed");
    expect(row.jobId).toBeNull();
  } finally {
    clearInterval(ticking);
    rpc.beforeForwarding("eth_sendRawTransaction");
    rpc.beforeForwarding("eth_getTransactionByHash");
  }
  const credited = await (await db()).select().from(topUps).where(eq(topUps.fromAddress, payer.address));
  expect(credited).toEqual([]);
  const payerJobs = await (
    await db()
  )
    .select({ id: jobs.id })
    .from(jobs)
    .innerJoin(x402Payments, eq(x402Payments.jobId, jobs.id))
    .where(eq(x402Payments.fromAddress, payer.address));
  expect(payerJobs).toEqual([]);
  expect(await tokenBalance(chain, payer.address)).toBe(payerBefore);
  expect(await tokenBalance(chain, chain.treasury)).toBe(treasuryBefore);
}, 90_000);
