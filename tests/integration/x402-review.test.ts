// Pay per call (CONTRACT §15) where a transaction that used our payers' authorizations holds more than one use
// or transfer of theirs, on ganache with the solc-compiled EIP-3009 token and the official x402 client: each
// payment is credited once and in full, and what else the payer moved in the same transaction is credited too.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import type { PrivateKeyAccount } from "viem/accounts";
import { encodeFunctionData, keccak256, toFunctionSelector, toHex, type Hex } from "viem";
import { and, eq, isNull, sql } from "drizzle-orm";
import { accounts, paymentScans, topUps, x402Payments, x402Settlers } from "@/lib/db/schema";
import { db } from "@/lib/domain/database";
import { finishSettlement, transferElsewhere } from "@/lib/engine/paid-settlement";
import { paymentsConfig, x402Config } from "@/lib/env";
import { transferLogHealth } from "@/lib/payments/x402/transfer-log-side";
import { submitTopUp } from "@/lib/domain/top-ups";
import { testTokenAbi, type LocalChain } from "../support/chain";
import { signIn } from "../support/developer";
import { eventually } from "../support/jobs";
import type { RpcProxy } from "../support/rpc-proxy";
import type { TestServer } from "../support/test-server";
import {
  authorizationBatch,
  officialPayment,
  paymentPayload,
  paymentResponse,
  price,
  signedAuthorization,
  startX402,
  submitAuthorization,
  tokenBalance,
  type X402World,
} from "../support/x402";

const input = { input: { text: "Pay for it, however it is submitted." } };
const metricsToken = "metrics-token-for-x402-review";

let world: X402World;
let chain: LocalChain;
let rpc: RpcProxy;
let server: TestServer;

beforeAll(async () => {
  world = await startX402({
    PAYMENTS_SETTLEMENT_TIMEOUT_MS: "8000",
    X402_RATE_PER_MINUTE: "0",
    METRICS_TOKEN: metricsToken,
  });
  ({ chain, rpc, server } = world);
}, 90_000);

afterAll(async () => {
  await world?.close();
});

const executeUrl = `/api/marketplace/services/token-count/execute`;
const execute = (headers: Record<string, string> = {}) =>
  fetch(`${server.baseUrl}${executeUrl}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(input),
  });

async function offer(): Promise<PaymentRequired> {
  const res = await execute();
  expect(res.status).toBe(402);
  return decodePaymentRequiredHeader(res.headers.get("payment-required") ?? "");
}

/** The signature's r: it appears in our settlement's calldata only. */
const signatureMark = (header: string) => paymentPayload(header).signature.slice(2, 66);

/**
 * Our settlements of these payments never reach the chain (the relay answers their hash and drops them, as a node
 * that evicts them would) until each was sent once; then `meanwhile` runs (a third party submits the
 * authorizations). Later broadcasts (the request sends a settlement the node does not know again) go through.
 */
function holdSettlements(headers: string[], meanwhile: () => Promise<unknown>): void {
  const held = new Set<string>();
  rpc.beforeForwarding("eth_sendRawTransaction", async (params) => {
    const raw = String(params[0]);
    const mark = headers.map(signatureMark).find((m) => raw.toLowerCase().includes(m.toLowerCase()));
    if (mark) held.add(mark);
    if (held.size === headers.length) {
      rpc.beforeForwarding("eth_sendRawTransaction");
      await meanwhile();
    }
    return { answer: keccak256(raw as Hex) };
  });
}

/** What the payer finds on signing in: their jobs, top-ups and the ledger's top-ups and charges. */
async function payerView(payer: PrivateKeyAccount) {
  const { cookie } = await signIn(server.baseUrl, payer);
  const read = async (path: string) => (await fetch(`${server.baseUrl}${path}`, { headers: { cookie } })).json();
  const jobs = await read("/api/developers/jobs");
  const topUps = await read("/api/credits/top-ups");
  const history = await read("/api/credits/history");
  return {
    jobIds: (jobs.data as { jobId: string }[]).map((j) => j.jobId),
    topUps: (topUps.data as { txHash: string; status: string; credits: number; tokenAmount: string }[])
      .map((t) => ({ txHash: t.txHash, status: t.status, credits: t.credits, tokenAmount: t.tokenAmount }))
      .sort((a, b) => a.credits - b.credits),
    ledger: (history.data as { type: string; amount: number }[])
      .filter((e) => e.type === "topup" || e.type === "charge")
      .map((e) => [e.type, e.amount])
      .sort(),
  };
}

describe("several of a payer's payments used in one transaction (a relayer's batch)", () => {
  it("each is credited in full and runs its job: two payments, two credits, two jobs", async () => {
    const payer = await chain.newAccount();
    const required = await offer();
    const first = await officialPayment(chain, payer, required);
    const second = await officialPayment(chain, payer, required);
    let batch: Hex | undefined;
    holdSettlements([first, second], async () => {
      batch = await submitAuthorization(chain, first, second);
    });
    const answers = await Promise.all([
      execute({ "payment-signature": first }),
      execute({ "payment-signature": second }),
    ]);
    expect(answers.map((res) => res.status)).toEqual([202, 202]);
    await chain.mine(3);
    const view = await eventually(
      () => payerView(payer),
      (v) => v.jobIds.length === 2 && v.ledger.length === 4,
      20_000,
    );
    expect(view.topUps).toEqual([
      { txHash: batch, status: "credited", credits: 1, tokenAmount: String(price) },
      { txHash: batch, status: "credited", credits: 1, tokenAmount: String(price) },
    ]);
    expect(view.ledger).toEqual([
      ["charge", -1],
      ["charge", -1],
      ["topup", 1],
      ["topup", 1],
    ]);
  });

  it("a plain transfer of the payer's to the treasury in the same transaction is credited besides the payment", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(chain, payer, await offer());
    const plain = 2n * price;
    await chain.approve(payer, await authorizationBatch(chain), plain);
    const transferFrom = encodeFunctionData({
      abi: testTokenAbi,
      functionName: "transferFrom",
      args: [payer.address, chain.treasury, plain],
    });
    let batch: Hex | undefined;
    holdSettlements([header], async () => {
      batch = await submitAuthorization(chain, header, { call: transferFrom });
    });
    const res = await execute({ "payment-signature": header });
    expect(res.status).toBe(202);
    await chain.mine(3);
    const view = await eventually(
      () => payerView(payer),
      (v) => v.topUps.filter((t) => t.status === "credited").length === 2,
      20_000,
    );
    expect(view.jobIds).toHaveLength(1);
    expect(view.topUps).toEqual([
      { txHash: batch, status: "credited", credits: 1, tokenAmount: String(price) },
      { txHash: batch, status: "credited", credits: 2, tokenAmount: String(plain) },
    ]);
    expect(view.ledger).toEqual([
      ["charge", -1],
      ["topup", 1],
      ["topup", 2],
    ]);
  });
});

describe("a front-runner who puts a 0-value transfer of the payer's before the authorization in its batch", () => {
  // transferFrom(payer, anyone, 0) succeeds with no allowance and emits Transfer(payer → anyone, 0): the use's
  // AuthorizationUsed log then has a Transfer of the payer's on both sides. The token emits its own after it.
  it("cannot fail the payment: the money moved under it, so the call answers 202 and is credited", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(chain, payer, await offer());
    const anyone = (await chain.newAccount({ tokens: 0n })).address;
    const nothing = encodeFunctionData({
      abi: testTokenAbi,
      functionName: "transferFrom",
      args: [payer.address, anyone, 0n],
    });
    let batch: Hex | undefined;
    holdSettlements([header], async () => {
      batch = await submitAuthorization(chain, { call: nothing }, header);
    });
    const res = await execute({ "payment-signature": header });
    expect(res.status).toBe(202);
    const view = await payerView(payer);
    expect(view.jobIds).toHaveLength(1);
    expect(view.topUps).toEqual([{ txHash: batch, status: "credited", credits: 1, tokenAmount: String(price) }]);
    expect(view.ledger).toEqual([
      ["charge", -1],
      ["topup", 1],
    ]);
  });
});

const authorizationState = toFunctionSelector("authorizationState(address,bytes32)");

/**
 * A node behind a load balancer that is behind the chain: asked for an authorization's state at "latest", it answers
 * "unused" (its older state), whatever the chain says. Asked at a block number, it answers as the chain does.
 */
function lagAuthorizationStateAtLatest(): void {
  rpc.beforeForwarding("eth_call", async ([call, tag]) =>
    String((call as { data?: string }).data ?? "").startsWith(authorizationState) && tag === "latest"
      ? { answer: `0x${"0".repeat(64)}` }
      : undefined,
  );
}

const paymentRow = async (payer: PrivateKeyAccount) =>
  (await (await db()).select().from(x402Payments).where(eq(x402Payments.fromAddress, payer.address)))[0];

describe("a lagging node's word on an authorization's state never fails a payment that moved", () => {
  it("our settlement reverted because someone else used the authorization first: read at its block, the use is found (202)", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(chain, payer, await offer());
    let used: Hex | undefined;
    rpc.beforeForwarding("eth_sendRawTransaction", async () => {
      rpc.beforeForwarding("eth_sendRawTransaction");
      used = await submitAuthorization(chain, header);
      lagAuthorizationStateAtLatest();
    });
    try {
      const res = await execute({ "payment-signature": header });
      expect(res.status).toBe(202);
    } finally {
      rpc.beforeForwarding("eth_call");
    }
    const view = await payerView(payer);
    expect(view.jobIds).toHaveLength(1);
    expect(view.topUps).toEqual([{ txHash: used, status: "credited", credits: 1, tokenAmount: String(price) }]);
  });

  it("our settlement was mined but a node does not show it (lost to the sweep): read at the head the settler's nonce was read at, it is finished", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(chain, payer, await offer());
    let ours: Hex | undefined;
    rpc.beforeForwarding("eth_sendRawTransaction", async ([raw]) => {
      rpc.beforeForwarding("eth_sendRawTransaction");
      ours = keccak256(raw as Hex);
      // Its receipt and the transaction read as null; the state at "latest" as unused.
      rpc.hideTransaction(ours, true);
      lagAuthorizationStateAtLatest();
    });
    try {
      const res = await execute({ "payment-signature": header });
      expect(res.status).toBe(503);
      const row = await eventually(
        () => paymentRow(payer),
        (r) => r.status !== "settling",
        30_000,
      );
      expect(row).toMatchObject({ status: "settled" });
    } finally {
      rpc.beforeForwarding("eth_call");
      if (ours) rpc.hideTransaction(ours, false);
    }
    const view = await payerView(payer);
    expect(view.jobIds).toHaveLength(1);
    expect(view.topUps).toEqual([{ txHash: ours, status: "credited", credits: 1, tokenAmount: String(price) }]);
  });
});

describe("a reverted settlement the sweep finished while the request looked", () => {
  it("the request answers with the sweep's finish (202, the job), never 'nothing moved'", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(chain, payer, await offer());
    let used: Hex | undefined;
    let looked = false;
    rpc.beforeForwarding("eth_sendRawTransaction", async () => {
      rpc.beforeForwarding("eth_sendRawTransaction");
      // The payer moves its tokens away: our settlement is mined and reverts, the authorization still unused.
      await chain.transfer(payer, chain.deployer.address, await tokenBalance(chain, payer.address));
      rpc.beforeForwarding("eth_call", async (params) => {
        const [call] = params as [{ data?: string }];
        if (looked || !String(call.data ?? "").startsWith(authorizationState)) return undefined;
        looked = true;
        // The request reads "unused"; before it acts on that, the payer's tokens come back, a third party uses
        // the authorization, and the sweep finishes the payment with that transaction.
        const answer = await fetch(chain.rpcUrl, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_call", params }),
        });
        const { result } = (await answer.json()) as { result: Hex };
        await chain.fund(payer.address, { tokens: price });
        used = await submitAuthorization(chain, header);
        // What the sweep does for it, done here at once (the request's RPC calls time out in 5 s).
        const config = x402Config();
        if (!config) throw new Error("x402 is not configured in this file's server");
        const row = await paymentRow(payer);
        const found = await transferElsewhere(config, row, { head: await chain.publicClient.getBlockNumber() });
        if (!found || typeof found === "string") throw new Error(`the third party's use was not found (${found})`);
        await finishSettlement(config, row.id, found);
        // And its block reads as past the authorization's validBefore (else the request leaves it settling).
        rpc.beforeForwarding("eth_getBlockByNumber", async (blockParams) => {
          rpc.beforeForwarding("eth_getBlockByNumber");
          const block = await fetch(chain.rpcUrl, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getBlockByNumber", params: blockParams }),
          });
          const { result: read } = (await block.json()) as { result: { timestamp: Hex } };
          return { answer: { ...read, timestamp: toHex(BigInt(read.timestamp) + 86_400n) } };
        });
        return { answer: result };
      });
    });
    try {
      const res = await execute({ "payment-signature": header });
      expect(res.status).toBe(202);
      expect(looked).toBe(true);
    } finally {
      rpc.beforeForwarding("eth_call");
      rpc.beforeForwarding("eth_getBlockByNumber");
    }
    const view = await payerView(payer);
    expect(view.jobIds).toHaveLength(1);
    expect(view.topUps).toEqual([{ txHash: used, status: "credited", credits: 1, tokenAmount: String(price) }]);
  });
});

describe("a reverted settlement the sweep finished, the §10 top-up credited first", () => {
  it("the late 202's PAYMENT-RESPONSE (and a keyed retry's) names the transaction that moved the money, not ours", async () => {
    const payer = await chain.newAccount();
    // The payer has an account: the top-up of what someone else's transaction moved is credited to it at once.
    await signIn(server.baseUrl, payer);
    const [account] = await (await db()).select().from(accounts).where(eq(accounts.walletAddress, payer.address));
    const header = await officialPayment(chain, payer, await offer());
    let ours: Hex | undefined;
    let used: Hex | undefined;
    let looked = false;
    rpc.beforeForwarding("eth_sendRawTransaction", async ([raw]) => {
      rpc.beforeForwarding("eth_sendRawTransaction");
      ours = keccak256(raw as Hex);
      // The payer moves its tokens away: our settlement is mined and reverts, the authorization still unused.
      await chain.transfer(payer, chain.deployer.address, await tokenBalance(chain, payer.address));
      rpc.beforeForwarding("eth_call", async (params) => {
        const [call, at] = params as [{ data?: string }, string];
        if (looked || !String(call.data ?? "").startsWith(authorizationState)) return undefined;
        looked = true;
        const answer = await fetch(chain.rpcUrl, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_call", params }),
        });
        const { result } = (await answer.json()) as { result: Hex };
        // The request reads "unused"; meanwhile the tokens come back and a third party uses the authorization.
        await chain.fund(payer.address, { tokens: price });
        const usedNow = await submitAuthorization(chain, header);
        used = usedNow;
        // The payer's top-up of that transaction is credited (§10); then, before the request reads that block's
        // time (is the authorization expired?), the sweep finishes the payment with it. Each hook within a call's
        // 5 s: the chain is read directly, not through the relay, from a search floor kept on the row already.
        await chain.mine(2);
        if (!paymentsConfig()) throw new Error("top-ups are not configured in this file's server");
        const { topUp } = await submitTopUp(account.id, payer.address, { chainId: chain.chainId, txHash: usedNow });
        expect(topUp.status).toBe("credited");
        await (
          await db()
        )
          .update(x402Payments)
          .set({ useSearchFloor: BigInt(at) })
          .where(eq(x402Payments.fromAddress, payer.address));
        rpc.beforeForwarding("eth_getBlockByNumber", async (blockParams) => {
          if (blockParams[0] !== at) return undefined;
          rpc.beforeForwarding("eth_getBlockByNumber");
          const config = x402Config();
          if (!config) throw new Error("x402 is not configured in this file's server");
          const row = await paymentRow(payer);
          const direct = { ...config, rpcUrl: chain.rpcUrl };
          const found = await transferElsewhere(direct, row, { head: await chain.publicClient.getBlockNumber() });
          if (!found || typeof found === "string") throw new Error(`the third party's use was not found (${found})`);
          await finishSettlement(direct, row.id, found);
          const block = await fetch(chain.rpcUrl, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getBlockByNumber", params: blockParams }),
          });
          const { result: read } = (await block.json()) as { result: { timestamp: Hex } };
          return { answer: { ...read, timestamp: toHex(BigInt(read.timestamp) + 86_400n) } };
        });
        return { answer: result };
      });
    });
    const keyed = { "payment-signature": header, "idempotency-key": "credited-first" };
    try {
      const res = await execute(keyed);
      expect(res.status).toBe(202);
      expect(looked).toBe(true);
      expect(used).not.toBe(ours);
      expect(paymentResponse(res)).toMatchObject({ success: true, transaction: used });
    } finally {
      rpc.beforeForwarding("eth_call");
      rpc.beforeForwarding("eth_getBlockByNumber");
    }
    const retried = await execute(keyed);
    expect(retried.status).toBe(202);
    expect(paymentResponse(retried)).toMatchObject({ success: true, transaction: used });
    // Credited once, by the top-up of the transaction that moved it; the job charged.
    const view = await payerView(payer);
    expect(view.jobIds).toHaveLength(1);
    expect(view.topUps).toEqual([{ txHash: used, status: "credited", credits: 1, tokenAmount: String(price) }]);
  });
});

describe("a settlement that reverted while its authorization stays valid", () => {
  // Ours reverts for another reason than the nonce's use (the payer moved its tokens away); the authorization's
  // calldata is public, and anyone may submit it until validBefore.
  async function revertedSettlement(validSeconds: number) {
    const payer = await chain.newAccount();
    const required = await offer();
    const header = await signedAuthorization(chain, payer, required.accepts[0], {
      validBefore: BigInt(Math.floor(Date.now() / 1000) + validSeconds),
    });
    rpc.beforeForwarding("eth_sendRawTransaction", async () => {
      rpc.beforeForwarding("eth_sendRawTransaction");
      await chain.transfer(payer, chain.deployer.address, await tokenBalance(chain, payer.address));
    });
    const res = await execute({ "payment-signature": header });
    expect([res.status, res.headers.get("payment-response")]).toEqual([503, null]);
    expect((await paymentRow(payer)).status).toBe("settling");
    return { payer, header };
  }

  it("stays settling (503): submitted later by someone else, the sweep finishes it and its job runs", async () => {
    const { payer, header } = await revertedSettlement(300);
    await chain.fund(payer.address, { tokens: price });
    const used = await submitAuthorization(chain, header);
    const row = await eventually(
      () => paymentRow(payer),
      (r) => r.status !== "settling",
      30_000,
    );
    expect(row.status).toBe("settled");
    const view = await payerView(payer);
    expect(view.jobIds).toHaveLength(1);
    expect(view.topUps).toEqual([{ txHash: used, status: "credited", credits: 1, tokenAmount: String(price) }]);
  });

  it("is failed once the chain's time reaches its validBefore, and not before", async () => {
    const { payer } = await revertedSettlement(12);
    await new Promise((resolve) => setTimeout(resolve, 13_000));
    expect((await paymentRow(payer)).status).toBe("settling");
    await chain.mine(1);
    const row = await eventually(
      () => paymentRow(payer),
      (r) => r.status !== "settling",
      30_000,
    );
    expect(row).toMatchObject({ status: "failed", failureReason: "settlement_failed", jobId: null });
  });
});

describe("the operator's reconciliation (npm run payments -- reconcile)", () => {
  it("lists the top-ups a pay-per-call payment credited that name no payment (what migration 0032 left unmatched)", async () => {
    const payer = await chain.newAccount();
    const res = await execute({ "payment-signature": await officialPayment(chain, payer, await offer()) });
    expect(res.status).toBe(202);
    const transaction = paymentResponse(res).transaction.toLowerCase();
    const { runOperatorCommand } = await import("@/lib/operator/commands");
    type Report = { unmatchedPayPerCall: { txHash: string; from: string; credits: number }[] };
    const reconcile = async () =>
      (await runOperatorCommand("payments.reconcile", {
        fromBlock: Number(await chain.publicClient.getBlockNumber()),
      })) as Report;
    // Named by its payment (as every top-up since 0031 is): not listed.
    expect((await reconcile()).unmatchedPayPerCall.map((row) => row.txHash)).not.toContain(transaction);
    // As a pre-0031 top-up 0032 could not match is left: credited by the payment, naming none.
    await (await db()).update(topUps).set({ x402PaymentId: null }).where(eq(topUps.txHash, transaction));
    expect((await reconcile()).unmatchedPayPerCall).toContainEqual(
      expect.objectContaining({ txHash: transaction, from: payer.address, credits: 1 }),
    );
  });
});

describe("the operator's reconciliation of a transaction holding a payment and a plain transfer of one payer", () => {
  it("reports the payer's transfers there once, with every top-up that credits them: the payment's own and the plain rest", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(chain, payer, await offer());
    const plain = 2n * price;
    await chain.approve(payer, await authorizationBatch(chain), plain);
    const transferFrom = encodeFunctionData({
      abi: testTokenAbi,
      functionName: "transferFrom",
      args: [payer.address, chain.treasury, plain],
    });
    let batch: Hex | undefined;
    holdSettlements([header], async () => {
      batch = await submitAuthorization(chain, header, { call: transferFrom });
    });
    expect((await execute({ "payment-signature": header })).status).toBe(202);
    await chain.mine(3);
    await eventually(
      () => payerView(payer),
      (v) => v.topUps.filter((t) => t.status === "credited").length === 2,
      20_000,
    );
    const { blockNumber } = await chain.publicClient.getTransactionReceipt({ hash: batch as Hex });
    const { runOperatorCommand } = await import("@/lib/operator/commands");
    const report = (await runOperatorCommand("payments.reconcile", {
      fromBlock: Number(blockNumber),
      toBlock: Number(blockNumber),
    })) as { transfers: Record<string, unknown>[]; totals: Record<string, string> };
    expect(report.transfers).toEqual([
      expect.objectContaining({
        txHash: batch?.toLowerCase(),
        from: payer.address,
        amount: "0.03",
        topUp: "credited",
        credits: 3,
        account: payer.address,
        unaccounted: "0",
        topUps: expect.arrayContaining([
          expect.objectContaining({
            status: "credited",
            tokenAmount: "0.01",
            credits: 1,
            x402PaymentId: expect.any(String),
          }),
          expect.objectContaining({ status: "credited", tokenAmount: "0.02", credits: 2, x402PaymentId: null }),
        ]),
      }),
    ]);
    expect(report.totals).toMatchObject({ received: "0.03", credited: "0.03", unrecorded: "0" });
  });
});

describe("X402_TRANSFER_LOG, checked against our own settlements", () => {
  it("is known to every instance from the first settlement any of them made: one that settled nothing reads it shared", async () => {
    const paid = await execute({
      "payment-signature": await officialPayment(chain, await chain.newAccount(), await offer()),
    });
    expect(paid.status).toBe(202);
    const config = x402Config();
    if (!config) throw new Error("x402 is not configured in this file's server");
    // This test's process is another instance: it has settled nothing. A fresh copy of its state stands for one that
    // has just started.
    delete (globalThis as Record<symbol, unknown>)[Symbol.for("execution-network.x402-transfer-log-side")];
    vi.resetModules();
    const fresh = await import("@/lib/payments/x402/transfer-log-side");
    expect(fresh.transferLogHealth(config)).toBe("unchecked");
    expect(
      await eventually(
        () => fresh.transferLogState(config),
        (state) => state !== "unchecked",
        10_000,
      ),
    ).toBe("ok");
    expect(await fresh.transferLogState({ ...config, transferLog: "before" })).toBe("contradicted");
  });

  it("health and metrics say so once one is seen; judged on a side ours contradict, a front-runner's batch is left unjudged, never refused", async () => {
    // A call settled by our own transaction: the test token emits the Transfer after the AuthorizationUsed log.
    const paid = await execute({
      "payment-signature": await officialPayment(chain, await chain.newAccount(), await offer()),
    });
    expect(paid.status).toBe(202);
    expect((await (await fetch(`${server.baseUrl}/api/health`)).json()).transferLog).toBe("ok");
    const scrape = await fetch(`${server.baseUrl}/api/metrics`, {
      headers: { authorization: `Bearer ${metricsToken}` },
    });
    expect(await scrape.text()).toMatch(/^execution_x402_transfer_log_contradicted 0$/m);

    // A front-runner batches transferFrom(payer, anyone, 0) before the authorization: a Transfer of the payer's on
    // each side of its use. Judged with X402_TRANSFER_LOG=before, the 0-value one would refuse it (nothing moved),
    // though the price reached the treasury; our own settlements say the side is "after", so it is not judged.
    const payer = await chain.newAccount();
    const header = await officialPayment(chain, payer, await offer());
    const { authorization: a } = paymentPayload(header);
    const anyone = (await chain.newAccount({ tokens: 0n })).address;
    const nothing = encodeFunctionData({
      abi: testTokenAbi,
      functionName: "transferFrom",
      args: [payer.address, anyone, 0n],
    });
    const batch = await submitAuthorization(chain, { call: nothing }, header);
    const config = x402Config();
    if (!config) throw new Error("x402 is not configured in this file's server");
    const before = { ...config, transferLog: "before" as const };
    expect(transferLogHealth(before)).toBe("contradicted");
    const [row] = await (
      await db()
    )
      .insert(x402Payments)
      .values({
        chainId: chain.chainId,
        tokenAddress: chain.token,
        fromAddress: payer.address,
        nonce: a.nonce,
        status: "failed",
        serviceId: "token-count",
        fingerprint: "judged on the wrong side",
        value: price.toString(),
        input: input.input,
        placement: "any",
        settlementTxHash: batch,
        settlingSince: new Date(),
      })
      .returning();
    try {
      const head = await chain.publicClient.getBlockNumber();
      expect(await transferElsewhere(before, row, { head })).toBe("not found");
      // The side our settlements show judges it: paid.
      expect(await transferElsewhere(config, row, { head })).toMatchObject({ transactionHash: batch });
    } finally {
      await (await db()).delete(x402Payments).where(eq(x402Payments.id, row.id));
    }
  });
});

describe("a plain row of the payer's in the payment's transaction, found before the payment is credited", () => {
  /** The payer's plain top-up of `txHash` (what the §10 watcher records of the payer's transfers there). */
  const plainOf = async (txHash: Hex) =>
    (
      await (
        await db()
      )
        .select()
        .from(topUps)
        .where(and(eq(topUps.txHash, txHash.toLowerCase()), isNull(topUps.x402PaymentId)))
    )[0];

  /** A settlement of ours that reverted, left to the sweep: it finds the authorization's use and finishes with it. */
  async function settleBySweep(payer: PrivateKeyAccount, header: string) {
    const reverted = await chain.transferThatReverts(await chain.newAccount({ tokens: 0n }), chain.treasury, 1n);
    const [row] = await (
      await db()
    )
      .insert(x402Payments)
      .values({
        chainId: chain.chainId,
        tokenAddress: chain.token,
        fromAddress: payer.address,
        nonce: paymentPayload(header).authorization.nonce,
        status: "settling",
        serviceId: "token-count",
        fingerprint: "settled by the sweep",
        value: price.toString(),
        input: input.input,
        placement: "any",
        settlementTxHash: reverted,
        settlerNonce: 0,
        settlingSince: new Date(),
        updatedAt: new Date(Date.now() - 3_600_000),
      })
      .returning();
    const read = async () => (await (await db()).select().from(x402Payments).where(eq(x402Payments.id, row.id)))[0];
    expect(await eventually(read, (r) => r.status !== "settling", 30_000)).toMatchObject({ status: "settled" });
  }

  it("refused as out of range, it keeps only what the payment did not take", async () => {
    const payer = await chain.newAccount();
    const huge = 2n ** 200n;
    await chain.fund(payer.address, { tokens: huge });
    await chain.approve(payer, await authorizationBatch(chain), huge);
    const header = await officialPayment(chain, payer, await offer());
    const transferFrom = encodeFunctionData({
      abi: testTokenAbi,
      functionName: "transferFrom",
      args: [payer.address, chain.treasury, huge],
    });
    const batch = await submitAuthorization(chain, header, { call: transferFrom });
    const found = await eventually(
      () => plainOf(batch),
      (row) => row?.failureReason === "AMOUNT_OUT_OF_RANGE",
      20_000,
    );
    expect(found.tokenAmount).toBe(String(huge + price));
    await settleBySweep(payer, header);
    expect(await plainOf(batch)).toMatchObject({
      status: "failed",
      failureReason: "AMOUNT_OUT_OF_RANGE",
      tokenAmount: String(huge),
    });
  });

  it("DROPPED, it comes back with what was found: the payment credited next leaves the rest, which is credited", async () => {
    const payer = await chain.newAccount();
    const plain = 2n * price;
    await chain.approve(payer, await authorizationBatch(chain), plain);
    const header = await officialPayment(chain, payer, await offer());
    const transferFrom = encodeFunctionData({
      abi: testTokenAbi,
      functionName: "transferFrom",
      args: [payer.address, chain.treasury, plain],
    });
    // The watcher's scan (its logs filtered on the treasury) fails while the batch is mined and its hash, named
    // before it was (a submission), is recorded DROPPED more than a day ago: only a scan brings it back.
    const treasury = chain.treasury.slice(2);
    rpc.failCallsNaming(treasury, true);
    let batch: Hex;
    try {
      batch = await submitAuthorization(chain, header, { call: transferFrom });
      await (await db()).insert(topUps).values({
        chainId: chain.chainId,
        txHash: batch.toLowerCase(),
        fromAddress: payer.address,
        status: "failed",
        failureReason: "DROPPED",
        requiredConfirmations: 2,
        createdAt: new Date(Date.now() - 2 * 86_400_000),
      });
      await chain.mine(3);
    } finally {
      rpc.failCallsNaming(treasury, false);
    }
    // The payer has no account yet: the row waits, found, until the payment opens one.
    await eventually(
      () => plainOf(batch),
      (row) => row?.status === "confirming",
      30_000,
    );
    await settleBySweep(payer, header);
    const view = await eventually(
      () => payerView(payer),
      (v) => v.topUps.filter((t) => t.status === "credited").length === 2,
      30_000,
    );
    expect(view.topUps).toEqual([
      { txHash: batch, status: "credited", credits: 1, tokenAmount: String(price) },
      { txHash: batch, status: "credited", credits: 2, tokenAmount: String(plain) },
    ]);
  });
});

describe("a plain top-up named before the payment's transaction was mined", () => {
  it("keeps answering its id, credited, and the payer is credited once whichever of the watcher and the payment comes first", async () => {
    const payer = await chain.newAccount();
    const { cookie } = await signIn(server.baseUrl, payer);
    const [account] = await (await db()).select().from(accounts).where(eq(accounts.walletAddress, payer.address));
    const header = await officialPayment(chain, payer, await offer());
    let named: { topUpId: string; txHash: string; status: string } | undefined;
    // The payer names our settlement's transaction as a top-up while it is on its way to the node: recorded as
    // submitted (201), before the payment is credited.
    rpc.beforeForwarding("eth_sendRawTransaction", async ([raw]) => {
      rpc.beforeForwarding("eth_sendRawTransaction");
      const submitted = await submitTopUp(account.id, payer.address, {
        chainId: chain.chainId,
        txHash: keccak256(raw as Hex),
      });
      expect(submitted.created).toBe(true);
      named = submitted.topUp;
    });
    const res = await execute({ "payment-signature": header });
    expect(res.status).toBe(202);
    expect(named).toMatchObject({ status: "submitted" });
    const read = async () =>
      fetch(`${server.baseUrl}/api/credits/top-ups/${named?.topUpId}`, { headers: { cookie } }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as { status?: string; credits?: number; tokenAmount?: string },
      }));
    const answered = await eventually(read, (r) => r.status !== 200 || r.body.status !== "submitted", 20_000);
    // Most often the payment is credited first, in a row of its own, and the watcher's re-check finds it took all
    // the named row held: credited with nothing. When the watcher saw the transfer first (a loaded machine), the
    // payment took the named row over as its own credit. Never both: one transfer, one credit.
    const byPaymentFirst = { status: "credited", credits: 0, tokenAmount: "0" };
    const byWatcherFirst = { status: "credited", credits: 1, tokenAmount: String(price) };
    expect(answered.status).toBe(200);
    expect([byPaymentFirst, byWatcherFirst]).toContainEqual({
      status: answered.body.status,
      credits: answered.body.credits,
      tokenAmount: answered.body.tokenAmount,
    });
    const view = await payerView(payer);
    const inNamed = view.topUps.filter((t) => t.txHash === named?.txHash);
    expect(inNamed.every((t) => t.status === "credited")).toBe(true);
    expect(inNamed.reduce((sum, t) => sum + t.credits, 0)).toBe(1);
    expect(inNamed.reduce((sum, t) => sum + BigInt(t.tokenAmount), 0n)).toBe(BigInt(price));
    expect(view.ledger.filter(([type]) => type === "topup")).toEqual([["topup", 1]]);
  });
});

describe("a payment's authorization used again in another transaction after a reorganisation", () => {
  it("is never credited a second time by the §10 watcher: the payment's credit already holds it", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(chain, payer, await offer());
    const before = await chain.snapshot();
    const res = await execute({ "payment-signature": header });
    expect(res.status).toBe(202);
    const settled = paymentResponse(res).transaction.toLowerCase();
    // The block holding our settlement is reorganised away; the same authorization, still valid, is submitted again
    // (by anyone: it is public) in another transaction on the new chain.
    await chain.revert(before);
    // The settler's kept nonce is past the chain's now (ours is gone): the chain's count is taken again.
    await (await db()).update(x402Settlers).set({ nextNonce: 0 });
    const again = (await submitAuthorization(chain, header)).toLowerCase();
    expect(again).not.toBe(settled);
    const { blockNumber } = await chain.publicClient.getTransactionReceipt({ hash: again as Hex });
    await chain.mine(3);
    // The watcher's cursor may already stand past that height (it scanned the reorganised block): it is set back
    // to the new block, so the scan below surely reads it. An advance is a compare-and-set on the cursor, so no
    // scan that started beyond it can move it on.
    await (
      await db()
    )
      .update(paymentScans)
      .set({ nextBlock: sql`least(${paymentScans.nextBlock}, ${Number(blockNumber)})` });
    // The watcher scans past that block (its cursor moves with what it recorded there, in one transaction).
    await eventually(
      async () => (await (await db()).select().from(paymentScans))[0],
      (scan) => scan !== undefined && BigInt(scan.nextBlock) > blockNumber,
      30_000,
    );
    expect(await (await db()).select().from(topUps).where(eq(topUps.txHash, again))).toEqual([]);
    const view = await payerView(payer);
    expect(view.ledger).toEqual([
      ["charge", -1],
      ["topup", 1],
    ]);
  });
});
