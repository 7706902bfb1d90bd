// The §10 top-ups beside pay per call (CONTRACT §10 and §15), on ganache with the solc-compiled EIP-3009 token: the
// watcher's look at the senders' authorizations cannot be stopped by anyone, and a transaction whose transfer a
// pay-per-call payment credited under another transaction holds is answered, never a 500. And the settlement sweep
// looks first at the settlement every later one waits behind.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { encodeFunctionData, keccak256, toHex, type Hex } from "viem";
import { eq, inArray } from "drizzle-orm";
import { accounts, x402Payments, x402Settlers } from "@/lib/db/schema";
import { db } from "@/lib/domain/database";
import { payersWhoMayHavePaidPerCall, submitTopUp } from "@/lib/domain/top-ups";
import { paymentsConfig } from "@/lib/env";
import { testTokenAbi, type LocalChain } from "../support/chain";
import { signIn } from "../support/developer";
import { eventually } from "../support/jobs";
import type { RpcProxy } from "../support/rpc-proxy";
import type { TestServer } from "../support/test-server";
import {
  officialPayment,
  paymentResponse,
  price,
  startX402,
  submitAuthorization,
  type X402World,
} from "../support/x402";

const input = { input: { text: "Pay for it beside a top-up." } };

/** The most entries the relay accepts in an eth_getLogs topic position (geth's and op-geth's cap is 1000). */
const topicListCap = 100;

let world: X402World;
let chain: LocalChain;
let rpc: RpcProxy;
let server: TestServer;

beforeAll(async () => {
  world = await startX402({ X402_RATE_PER_MINUTE: "0" });
  ({ chain, rpc, server } = world);
  // As geth does: a log filter naming more addresses than the cap in one topic position is refused.
  rpc.beforeForwarding("eth_getLogs", async ([filter]) => {
    const topics = (filter as { topics?: unknown[] } | undefined)?.topics ?? [];
    const isTooLong = topics.some((topic) => Array.isArray(topic) && topic.length > topicListCap);
    if (isTooLong) return { error: { code: -32602, message: `filter has more than ${topicListCap} topics` } };
  });
}, 90_000);

afterAll(async () => {
  await world?.close();
});

const execute = (headers: Record<string, string> = {}) =>
  fetch(`${server.baseUrl}/api/marketplace/services/token-count/execute`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(input),
  });

async function offer(): Promise<PaymentRequired> {
  const res = await execute();
  expect(res.status).toBe(402);
  return decodePaymentRequiredHeader(res.headers.get("payment-required") ?? "");
}

interface TopUp {
  topUpId: string;
  txHash: string;
  status: string;
  credits: number;
  tokenAmount: string;
}

async function topUpsOf(cookie: string): Promise<TopUp[]> {
  const res = await fetch(`${server.baseUrl}/api/credits/top-ups`, { headers: { cookie } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: TopUp[] }).data;
}

describe("the watcher beside a transaction naming many made-up senders", () => {
  it("goes on crediting later payments: one 0-value transfer to the treasury from each of more senders than an RPC names in one query holds nothing up", async () => {
    // Anyone can do this for the gas: transferFrom(x, treasury, 0) needs no allowance and no balance.
    const spam = Array.from({ length: topicListCap + 20 }, () => ({
      call: encodeFunctionData({
        abi: testTokenAbi,
        functionName: "transferFrom",
        args: [privateKeyToAccount(generatePrivateKey()).address, chain.treasury, 0n],
      }),
    }));
    await submitAuthorization(chain, ...spam);
    // A plain payment after it, which only the watcher finds (nobody submits it).
    const payer = await chain.newAccount();
    const { cookie } = await signIn(server.baseUrl, payer);
    const paid = (await chain.transfer(payer, chain.treasury, price)).toLowerCase();
    await chain.mine(2);
    const credited = await eventually(
      () => topUpsOf(cookie),
      (list) => list.some((t) => t.txHash === paid && t.status === "credited"),
      30_000,
    );
    expect(credited).toEqual([expect.objectContaining({ txHash: paid, status: "credited", credits: 1 })]);
    expect(await (await fetch(`${server.baseUrl}/api/health`)).json()).toMatchObject({ payments: "ok" });
  });
});

describe("a payer whose payment was recorded with the token's address in lower case (as configured before 7a0e006)", () => {
  it("is still one whose authorizations the watcher looks at", async () => {
    const payer = await chain.newAccount();
    const res = await execute({ "payment-signature": await officialPayment(chain, payer, await offer()) });
    expect(res.status).toBe(202);
    const config = paymentsConfig();
    if (!config) throw new Error("payments are configured in this file");
    await (
      await db()
    )
      .update(x402Payments)
      .set({ tokenAddress: config.tokenAddress.toLowerCase() })
      .where(eq(x402Payments.fromAddress, payer.address));
    const transfer = {
      txHash: keccak256(toHex("a later transfer")),
      from: payer.address,
      value: 1n,
      blockNumber: 1n,
      blockHash: keccak256(toHex("its block")),
      logIndex: 0,
    };
    expect(await payersWhoMayHavePaidPerCall(config, [transfer])).toEqual([payer.address]);
  });
});

describe("a top-up named by the payer whose transfer is a payment credited under another transaction", () => {
  it("answers 201 with a top-up credited with nothing (never a 500), and the payment stays credited once", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(chain, payer, await offer());
    const before = await chain.snapshot();
    const res = await execute({ "payment-signature": header });
    expect(res.status).toBe(202);
    const settled = paymentResponse(res).transaction.toLowerCase();
    // Our settlement's block is reorganised away; the same authorization, still valid, is used again by someone else.
    await chain.revert(before);
    // The settler's kept nonce is past the chain's now (ours is gone): the chain's count is taken again.
    await (await db()).update(x402Settlers).set({ nextNonce: 0 });
    const again = (await submitAuthorization(chain, header)).toLowerCase();
    expect(again).not.toBe(settled);
    await chain.mine(2);
    const { cookie } = await signIn(server.baseUrl, payer);
    const named = await fetch(`${server.baseUrl}/api/credits/top-ups`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.baseUrl, cookie },
      body: JSON.stringify({ chainId: chain.chainId, txHash: again }),
    });
    expect(named.status).toBe(201);
    const topUp = (await named.json()) as TopUp;
    expect(topUp).toMatchObject({ txHash: again, status: "credited", credits: 0, tokenAmount: "0" });
    // Named again: the same top-up (200), and the payment's credit is the only one.
    const namedAgain = await fetch(`${server.baseUrl}/api/credits/top-ups`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.baseUrl, cookie },
      body: JSON.stringify({ chainId: chain.chainId, txHash: again }),
    });
    expect(namedAgain.status).toBe(200);
    expect(await namedAgain.json()).toMatchObject({ topUpId: topUp.topUpId, credits: 0 });
    const history = await fetch(`${server.baseUrl}/api/credits/history`, { headers: { cookie } });
    const topups = ((await history.json()) as { data: { type: string; amount: number }[] }).data.filter(
      (e) => e.type === "topup",
    );
    expect(topups.map((e) => e.amount)).toEqual([1]);
  });
});

describe("a payment's settlement named as a top-up after a plain top-up named before it was kept with nothing", () => {
  it("answers the payer's credited payment (200), not the plain row credited with nothing", async () => {
    const payer = await chain.newAccount();
    const { cookie } = await signIn(server.baseUrl, payer);
    const [account] = await (await db()).select().from(accounts).where(eq(accounts.walletAddress, payer.address));
    const header = await officialPayment(chain, payer, await offer());
    let early: { topUpId: string } | undefined;
    // The payer names our settlement's transaction while it is on its way to the node: a plain top-up, submitted.
    rpc.beforeForwarding("eth_sendRawTransaction", async ([raw]) => {
      rpc.beforeForwarding("eth_sendRawTransaction");
      early = (await submitTopUp(account.id, payer.address, { chainId: chain.chainId, txHash: keccak256(raw as Hex) }))
        .topUp;
    });
    const res = await execute({ "payment-signature": header });
    expect(res.status).toBe(202);
    const settlement = paymentResponse(res).transaction.toLowerCase();
    await chain.mine(2);
    // The payment took all the plain top-up held: the watcher leaves it credited with nothing.
    await eventually(
      () => topUpsOf(cookie),
      (list) => list.some((t) => t.topUpId === early?.topUpId && t.status === "credited"),
      20_000,
    );
    const named = await fetch(`${server.baseUrl}/api/credits/top-ups`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.baseUrl, cookie },
      body: JSON.stringify({ chainId: chain.chainId, txHash: settlement }),
    });
    expect(named.status).toBe(200);
    const topUp = (await named.json()) as TopUp;
    expect(topUp.topUpId).not.toBe(early?.topUpId);
    expect(topUp).toMatchObject({ txHash: settlement, status: "credited", credits: 1, tokenAmount: String(price) });
  });
});

describe("the settlement sweep with more stale settlements than a batch holds", () => {
  it("looks first at the one at the settler's next nonce, which every later settlement waits behind", async () => {
    const minedNonce = await chain.publicClient.getTransactionCount({ address: world.settler });
    // A transaction the node refuses (its sender has no ETH): every broadcast of it fails, and the row stays.
    const unsendable = () =>
      privateKeyToAccount(generatePrivateKey()).signTransaction({
        to: chain.treasury,
        value: 0n,
        gas: 21_000n,
        gasPrice: 1n,
        nonce: 0,
        chainId: chain.chainId,
      });
    const randomHash = () => toHex(crypto.getRandomValues(new Uint8Array(32)));
    const row = async (settlerNonce: number, lookedAtMsAgo: number) => ({
      chainId: chain.chainId,
      tokenAddress: chain.token,
      fromAddress: privateKeyToAccount(generatePrivateKey()).address,
      nonce: randomHash(),
      status: "settling" as const,
      serviceId: "token-count",
      fingerprint: "next-nonce-first",
      value: price.toString(),
      input: input.input,
      placement: "any",
      settlementTxHash: randomHash(),
      settlementRawTx: await unsendable(),
      // Replaced 5 times already: only rebroadcast and reported from now on.
      replacedTxHashes: Array.from({ length: 5 }, randomHash),
      settlerNonce,
      updatedAt: new Date(Date.now() - lookedAtMsAgo),
    });
    // More than a batch (50) behind it, each unlooked-at for longer than the one at the next nonce.
    const behind = await Promise.all(Array.from({ length: 60 }, (_, i) => row(minedNonce + 1 + i, 7_200_000)));
    const next = await row(minedNonce, 3_600_000);
    const ours = new Set([next, ...behind].map((r) => r.settlementRawTx.toLowerCase()));
    const broadcastOrder: string[] = [];
    rpc.beforeForwarding("eth_sendRawTransaction", async ([raw]) => {
      if (ours.has(String(raw).toLowerCase())) broadcastOrder.push(String(raw).toLowerCase());
    });
    const ids = (
      await (
        await db()
      )
        .insert(x402Payments)
        .values([...behind, next])
        .returning({ id: x402Payments.id })
    ).map((r) => r.id);
    try {
      await eventually(
        async () => broadcastOrder.length,
        (n) => n >= ours.size,
        60_000,
      );
      expect(broadcastOrder.indexOf(next.settlementRawTx.toLowerCase())).toBe(0);
    } finally {
      rpc.beforeForwarding("eth_sendRawTransaction");
      await (await db()).delete(x402Payments).where(inArray(x402Payments.id, ids));
    }
  }, 90_000);
});
