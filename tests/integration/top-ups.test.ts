// Credit top-ups against a real chain (CONTRACT §10): a local EVM (ganache) with a real ERC-20, the server
// reading it through a relay the tests can take down. Every payment is verified by the server itself and
// credited exactly once, whoever names it and however often.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import type { Hash } from "viem";
import { startLocalChain, type LocalChain } from "../support/chain";
import { signUpDeveloper, type Developer } from "../support/developer";
import { expectError, isoTime } from "../support/expect-error";
import { eventually } from "../support/jobs";
import { usePostgres } from "../support/postgres";
import { startRpcProxy, type RpcProxy } from "../support/rpc-proxy";
import { startTestServer, type TestServer } from "../support/test-server";
import { eq, inArray, sql } from "drizzle-orm";
import { topUps } from "@/lib/db/schema";
import { db } from "@/lib/domain/database";
import { recordFoundTransfers, topUpsToReconcile } from "@/lib/domain/top-ups";
import { paymentsConfig } from "@/lib/env";

interface TopUp {
  topUpId: string;
  chainId: number;
  txHash: string;
  from: string;
  tokenAmount: string;
  credits: number;
  status: "submitted" | "confirming" | "credited" | "failed";
  confirmations: number;
  requiredConfirmations: number;
  blockNumber: number | null;
  failureReason: string | null;
  createdAt: string;
  creditedAt: string | null;
}
interface CreditEntry {
  type: string;
  amount: number;
  topUpId: string | null;
  description: string;
}

const creditsPerToken = 100;
const requiredConfirmations = 2;
/** One whole token of the 6-decimal test token. */
const token = 1_000_000n;

let chain: LocalChain;
let rpc: RpcProxy;
let server: TestServer;

beforeAll(async () => {
  chain = await startLocalChain();
  rpc = await startRpcProxy(chain.rpcUrl);
  server = await startTestServer({
    embeddedNodes: 0,
    env: {
      PAYMENTS_RPC_URL: rpc.url,
      PAYMENTS_CHAIN_ID: String(chain.chainId),
      PAYMENTS_TOKEN_ADDRESS: chain.token,
      PAYMENTS_TREASURY_ADDRESS: chain.treasury,
      CREDITS_PER_TOKEN: String(creditsPerToken),
      PAYMENTS_CONFIRMATIONS: String(requiredConfirmations),
      PAYMENTS_POLL_MS: "100",
      PAYMENTS_SCAN_BLOCKS: "3",
      PAYMENTS_DROP_AFTER_MS: "600000",
      SIWE_CHAIN_IDS: "1",
      // Every test signs up fresh developers from one address: more than a minute's sign-in allowance.
      SIGN_IN_RATE_PER_MINUTE: "0",
      // The low-balance alert's endpoint (never called: its deliveries are read from the outbox).
      WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
    },
  });
}, 90_000);

afterAll(async () => {
  await server?.close();
  await rpc?.close();
  await chain?.stop();
});

/** A developer whose wallet holds ETH for gas and 1,000 test tokens. */
async function payingDeveloper(): Promise<{ dev: Developer; wallet: PrivateKeyAccount }> {
  const wallet = await chain.newAccount();
  return { dev: await signUpDeveloper(server.baseUrl, { account: wallet }), wallet };
}

const submitTopUp = (dev: Developer, txHash: string, chainId = chain.chainId) =>
  dev.session("/api/credits/top-ups", { method: "POST", body: JSON.stringify({ chainId, txHash }) });

async function readTopUp(dev: Developer, topUpId: string): Promise<TopUp> {
  const res = await dev.session(`/api/credits/top-ups/${topUpId}`);
  expect(res.status).toBe(200);
  return (await res.json()) as TopUp;
}

const waitForTopUp = (dev: Developer, topUpId: string, done: (t: TopUp) => boolean) =>
  eventually(() => readTopUp(dev, topUpId), done, 20_000);

async function balanceOf(dev: Developer): Promise<number> {
  return ((await (await dev.session("/api/credits/balance")).json()) as { balance: number }).balance;
}

/** The watcher is not stuck: a later payment of a new developer is found and credited, and health says ok. */
async function expectLaterPaymentCredited() {
  const later = await payingDeveloper();
  const before = await balanceOf(later.dev);
  await chain.transfer(later.wallet, chain.treasury, token);
  await chain.mine(requiredConfirmations);
  await eventually(
    () => balanceOf(later.dev),
    (balance) => balance === before + 100,
    20_000,
  );
  expect(await (await fetch(`${server.baseUrl}/api/health`)).json()).toMatchObject({ payments: "ok" });
}

async function topUpEntries(dev: Developer): Promise<CreditEntry[]> {
  const res = await dev.session("/api/credits/history?limit=100");
  return ((await res.json()) as { data: CreditEntry[] }).data.filter((e) => e.type === "topup");
}

/** Lets the watcher run a few ticks (it polls every 100 ms). */
const watcherTicks = (ticks = 5) => new Promise((resolve) => setTimeout(resolve, ticks * 100));

describe("configuration", () => {
  it("tells the page how to pay: chain, token (decimals and symbol read from the contract), treasury, price, confirmations", async () => {
    const res = await fetch(`${server.baseUrl}/api/credits/top-ups/config`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      enabled: true,
      chainId: chain.chainId,
      tokenAddress: chain.token,
      tokenSymbol: "tUSD",
      tokenDecimals: 6,
      treasuryAddress: chain.treasury,
      creditsPerToken,
      confirmations: requiredConfirmations,
      explorerUrl: null,
    });
  });

  it("reports the payments RPC in /api/health", async () => {
    expect(await (await fetch(`${server.baseUrl}/api/health`)).json()).toMatchObject({ status: "ok", payments: "ok" });
  });
});

describe("a payment from the signed-in wallet", () => {
  it("is recorded at once, confirms block by block, and is credited once deep enough: balance, history and the top-up agree", async () => {
    const { dev, wallet } = await payingDeveloper();
    const before = await balanceOf(dev);
    const txHash = await chain.transfer(wallet, chain.treasury, 5n * token + 500_000n);

    const res = await submitTopUp(dev, txHash);
    // 201, or 200 when the watcher (polling every 100 ms) recorded it first.
    expect([200, 201]).toContain(res.status);
    const recorded = (await res.json()) as TopUp;
    expect(recorded).toEqual({
      topUpId: expect.any(String),
      chainId: chain.chainId,
      txHash: txHash.toLowerCase(),
      from: wallet.address,
      tokenAmount: "5500000",
      credits: 550,
      status: "confirming",
      confirmations: 0,
      requiredConfirmations,
      blockNumber: expect.any(Number),
      failureReason: null,
      createdAt: isoTime,
      creditedAt: null,
    });

    await chain.mine(1);
    const halfway = await waitForTopUp(dev, recorded.topUpId, (t) => t.confirmations === 1);
    expect(halfway.status).toBe("confirming");
    expect(await balanceOf(dev)).toBe(before);

    await chain.mine(1);
    const credited = await waitForTopUp(dev, recorded.topUpId, (t) => t.status === "credited");
    expect(credited).toMatchObject({ status: "credited", credits: 550, creditedAt: isoTime });
    expect(await balanceOf(dev)).toBe(before + 550);
    const [entry] = await topUpEntries(dev);
    expect(entry).toMatchObject({ type: "topup", amount: 550, topUpId: recorded.topUpId });
    expect(entry.description).toContain(txHash.toLowerCase());
    expect(entry.description).toContain("5.5 tUSD");
  });

  it("named again (or by the watcher too) is the same top-up, 200, and is never credited twice", async () => {
    const { dev, wallet } = await payingDeveloper();
    const txHash = await chain.transfer(wallet, chain.treasury, token);
    await chain.mine(requiredConfirmations);
    const first = await submitTopUp(dev, txHash);
    expect([200, 201]).toContain(first.status);
    const created = (await first.json()) as TopUp;
    expect(created.status).toBe("credited");

    const again = await submitTopUp(dev, txHash.toUpperCase().replace("0X", "0x"));
    expect(again.status).toBe(200);
    expect(((await again.json()) as TopUp).topUpId).toBe(created.topUpId);
    await watcherTicks();
    expect(await topUpEntries(dev)).toHaveLength(1);
  });

  it("sent concurrently by the payer and by another account, while the watcher scans: one top-up, one credit", async () => {
    const { dev, wallet } = await payingDeveloper();
    const other = await payingDeveloper();
    const before = await balanceOf(dev);
    const txHash = await chain.transfer(wallet, chain.treasury, 2n * token);
    await chain.mine(requiredConfirmations);

    const answers = await Promise.all([
      ...Array.from({ length: 6 }, () => submitTopUp(dev, txHash)),
      ...Array.from({ length: 3 }, () => submitTopUp(other.dev, txHash)),
    ]);
    const statuses = answers.map((a) => a.status);
    expect(statuses.slice(0, 6).filter((s) => s === 201).length).toBeLessThanOrEqual(1);
    expect(statuses.slice(0, 6).every((s) => s === 200 || s === 201)).toBe(true);
    // The other account never gets it: refused as not its payment, or as someone else's.
    for (const answer of answers.slice(6)) {
      expect([409, 422]).toContain(answer.status);
      const body = (await answer.json()) as { error: { code: string; details?: { reason?: string } } };
      expect(body.error.code === "PAYMENT_CLAIMED" || body.error.details?.reason === "WRONG_SENDER").toBe(true);
    }
    await watcherTicks();
    expect(await topUpEntries(dev)).toHaveLength(1);
    expect(await balanceOf(dev)).toBe(before + 200);
    expect(await topUpEntries(other.dev)).toHaveLength(0);
  });

  it("not yet mined is recorded as submitted, then followed by the watcher to credited", async () => {
    const { dev, wallet } = await payingDeveloper();
    await chain.stopMining();
    let txHash: Hash;
    try {
      txHash = await chain.transfer(wallet, chain.treasury, 3n * token);
      const res = await submitTopUp(dev, txHash);
      expect(res.status).toBe(201);
      const pending = (await res.json()) as TopUp;
      expect(pending).toMatchObject({
        status: "submitted",
        from: wallet.address,
        tokenAmount: "0",
        credits: 0,
        blockNumber: null,
      });
      await watcherTicks();
      expect((await readTopUp(dev, pending.topUpId)).status).toBe("submitted");
    } finally {
      await chain.startMining();
    }
    await chain.mine(requiredConfirmations + 1);
    const [topUp] = ((await (await dev.session("/api/credits/top-ups")).json()) as { data: TopUp[] }).data;
    const credited = await waitForTopUp(dev, topUp.topUpId, (t) => t.status === "credited");
    expect(credited).toMatchObject({ txHash: txHash.toLowerCase(), tokenAmount: "3000000", credits: 300 });
  });

  it("with fewer confirmations than required stays confirming and uncredited", async () => {
    const { dev, wallet } = await payingDeveloper();
    const before = await balanceOf(dev);
    const txHash = await chain.transfer(wallet, chain.treasury, token);
    await chain.mine(requiredConfirmations - 1);
    const topUp = (await (await submitTopUp(dev, txHash)).json()) as TopUp;
    await watcherTicks();
    expect(await readTopUp(dev, topUp.topUpId)).toMatchObject({
      status: "confirming",
      confirmations: requiredConfirmations - 1,
    });
    expect(await balanceOf(dev)).toBe(before);
  });

  it("through a smart-contract wallet counts for the contract's address (the Transfer log's from), not the transaction's sender", async () => {
    const { dev: owner, wallet } = await payingDeveloper();
    const forwarder = await chain.deployForwarder(wallet);
    await chain.fund(forwarder, { tokens: 10n * token });
    // The contract's account (a smart-contract wallet signs in with ERC-1271), made here directly.
    const { findOrCreateAccount } = await import("@/lib/domain/accounts");
    const { accountId } = await findOrCreateAccount(forwarder);
    const txHash = await chain.payThroughForwarder(wallet, forwarder, chain.treasury, 4n * token);
    await chain.mine(requiredConfirmations);
    // The EOA that sent the transaction did not pay: the contract did (WRONG_SENDER, or PAYMENT_CLAIMED once
    // the watcher has recorded it for the contract's account).
    const refused = await owner.session("/api/credits/top-ups", {
      method: "POST",
      body: JSON.stringify({ chainId: chain.chainId, txHash }),
    });
    const { error } = (await refused.json()) as { error: { code: string; details?: { reason?: string } } };
    expect(`${refused.status} ${error.code} ${error.details?.reason ?? ""}`).toMatch(
      /^(422 INVALID_PAYMENT WRONG_SENDER|409 PAYMENT_CLAIMED )$/,
    );
    expect(await topUpEntries(owner)).toEqual([]);
    // The contract's account is credited by the watcher.
    const { listCreditHistory } = await import("@/lib/domain/credits");
    const history = await eventually(
      () => listCreditHistory(accountId, { page: 1, limit: 10 }),
      (page) => page.data.some((e) => e.type === "topup"),
      20_000,
    );
    expect(history.data.find((e) => e.type === "topup")).toMatchObject({ amount: 400 });
  });
});

describe("a transaction that is not a payment of this developer", () => {
  let dev: Developer;
  let wallet: PrivateKeyAccount;
  beforeAll(async () => ({ dev, wallet } = await payingDeveloper()));

  const refusal = async (txHash: Hash, reason: string, chainId?: number) => {
    await chain.mine(requiredConfirmations);
    const error = await expectError(await submitTopUp(dev, txHash, chainId), 422, "INVALID_PAYMENT");
    expect(error.details).toEqual({ reason });
    const list = (await (await dev.session("/api/credits/top-ups")).json()) as { data: TopUp[] };
    if (reason === "WRONG_CHAIN") {
      // The transfer is a real payment on the configured chain: the watcher may record it there, never on the named one.
      expect(list.data.filter((t) => t.txHash === txHash.toLowerCase()).map((t) => t.chainId)).not.toContain(chainId);
    } else {
      expect(list.data.map((t) => t.txHash)).not.toContain(txHash.toLowerCase());
    }
  };

  it("pays another token: NO_PAYMENT", async () => {
    const otherToken = await chain.deployToken({ symbol: "FAKE", decimals: 6 });
    await chain.fund(wallet.address, { tokens: 10n * token, token: otherToken });
    await refusal(await chain.transfer(wallet, chain.treasury, token, { token: otherToken }), "NO_PAYMENT");
  });

  it("pays another recipient: NO_PAYMENT", async () => {
    await refusal(await chain.transfer(wallet, privateKeyToAccount(generatePrivateKey()).address, token), "NO_PAYMENT");
  });

  it("transfers 0 of the token to the treasury: NO_PAYMENT (a 422, nothing recorded)", async () => {
    await refusal(await chain.transfer(wallet, chain.treasury, 0n), "NO_PAYMENT");
  });

  it("was paid by another wallet: WRONG_SENDER", async () => {
    const stranger = await chain.newAccount();
    await refusal(await chain.transfer(stranger, chain.treasury, token), "WRONG_SENDER");
  });

  it("is on another chain: WRONG_CHAIN", async () => {
    await refusal(await chain.transfer(wallet, chain.treasury, token), "WRONG_CHAIN", 1);
  });

  it("reverted: TX_FAILED", async () => {
    await refusal(await chain.transferThatReverts(wallet, chain.treasury, 10_000n * token), "TX_FAILED");
  });

  it("is refused as a request when malformed, without the app's Origin, or when the payment is another account's", async () => {
    await expectError(
      await dev.session("/api/credits/top-ups", {
        method: "POST",
        body: JSON.stringify({ chainId: chain.chainId, txHash: "0x1234" }),
      }),
      400,
      "INVALID_REQUEST",
    );
    const txHash = await chain.transfer(wallet, chain.treasury, token);
    await expectError(
      await dev.session("/api/credits/top-ups", {
        method: "POST",
        headers: { origin: "https://evil.example" },
        body: JSON.stringify({ chainId: chain.chainId, txHash }),
      }),
      403,
      "FORBIDDEN_ORIGIN",
    );
    expect([200, 201]).toContain((await submitTopUp(dev, txHash)).status);
    const thief = await payingDeveloper();
    // Its payment is already recorded for `dev`: another account is told so (or that it is not its payment).
    const answer = await thief.dev.session("/api/credits/top-ups", {
      method: "POST",
      body: JSON.stringify({ chainId: chain.chainId, txHash }),
    });
    expect(answer.status).toBe(409);
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe("PAYMENT_CLAIMED");
  });
});

describe("reading top-ups", () => {
  it("lists a developer's own top-ups newest first (session, or a key with credits:read); another developer's is 404", async () => {
    const { dev, wallet } = await payingDeveloper();
    // Each transfer submitted before the next is sent: the watcher may record a transfer itself before its
    // submission, and two found in one scan would otherwise make "newest" a race between them.
    const hashes: string[] = [];
    for (const amount of [token, 2n * token]) {
      hashes.push(await chain.transfer(wallet, chain.treasury, amount));
      expect([200, 201]).toContain((await submitTopUp(dev, hashes.at(-1)!)).status);
    }
    const key = await dev.createApiKey(["credits:read"]);
    const page = (await (await dev.withKey(key, "/api/credits/top-ups?limit=1")).json()) as {
      data: TopUp[];
      pagination: { total: number };
    };
    expect(page.pagination.total).toBe(2);
    expect(page.data[0].txHash).toBe(hashes[1].toLowerCase());
    expect((await dev.withKey(key, `/api/credits/top-ups/${page.data[0].topUpId}`)).status).toBe(200);

    const noScope = await dev.createApiKey(["jobs:read"]);
    await expectError(await dev.withKey(noScope, "/api/credits/top-ups"), 403, "INSUFFICIENT_SCOPE");
    const other = await payingDeveloper();
    await expectError(await other.dev.session(`/api/credits/top-ups/${page.data[0].topUpId}`), 404, "NOT_FOUND");
    await expectError(await other.dev.session("/api/credits/top-ups/not-a-uuid"), 404, "NOT_FOUND");
  });

  it("refuses more than 20 unmined top-ups per developer, 40 submitted at once included, before asking the RPC anything", async () => {
    const { dev } = await payingDeveloper();
    const randomHash = () => `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex")}`;
    const answers = await Promise.all(Array.from({ length: 40 }, () => submitTopUp(dev, randomHash())));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(20);
    expect(statuses.filter((s) => s === 409)).toHaveLength(20);
    const list = (await (await dev.session("/api/credits/top-ups?limit=100")).json()) as { data: TopUp[] };
    expect(list.data.filter((t) => t.status === "submitted")).toHaveLength(20);

    // At the cap, a new hash is refused without the server's RPC ever hearing of it.
    const unseen = randomHash();
    await expectError(await submitTopUp(dev, unseen), 409, "LIMIT_REACHED");
    expect(rpc.callsNaming(unseen)).toBe(0);
  });
});

describe("a transaction that pays for several senders (a batch or multicall contract)", () => {
  /**
   * One transaction sent by a developer's wallet through a batch contract: first 1 token from the contract's
   * own balance, then 3 of the developer's (transferFrom). The contract has an account too (as a
   * smart-contract wallet that signed in would).
   */
  async function batchPayment() {
    const { dev, wallet } = await payingDeveloper();
    const batch = await chain.deployBatch();
    await chain.fund(batch, { tokens: 10n * token });
    const { findOrCreateAccount } = await import("@/lib/domain/accounts");
    const { accountId: batchAccount } = await findOrCreateAccount(batch);
    await chain.approve(wallet, batch, 3n * token);
    return { dev, wallet, batch, batchAccount, before: await balanceOf(dev) };
  }
  const pay = ({ wallet, batch }: { wallet: PrivateKeyAccount; batch: `0x${string}` }) =>
    chain.payThroughBatch(wallet, batch, chain.treasury, { own: token, caller: 3n * token });

  async function creditsOf(accountId: string) {
    const { listCreditHistory } = await import("@/lib/domain/credits");
    return (await listCreditHistory(accountId, { page: 1, limit: 10 })).data.filter((e) => e.type === "topup");
  }

  it("found by the watcher first: each sender is credited its own transfers, and the developer's submission is theirs (200)", async () => {
    const payment = await batchPayment();
    const txHash = await pay(payment);
    await chain.mine(requiredConfirmations);
    // The watcher has recorded the transaction once the contract's part is credited.
    await eventually(
      () => creditsOf(payment.batchAccount),
      (entries) => entries.length === 1,
      20_000,
    );
    const res = await submitTopUp(payment.dev, txHash);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      txHash: txHash.toLowerCase(),
      from: payment.wallet.address,
      tokenAmount: "3000000",
      credits: 300,
    });
    await eventually(
      () => balanceOf(payment.dev),
      (balance) => balance === payment.before + 300,
      20_000,
    );
    await watcherTicks();
    expect(await topUpEntries(payment.dev)).toEqual([expect.objectContaining({ amount: 300 })]);
    expect(await creditsOf(payment.batchAccount)).toEqual([expect.objectContaining({ amount: 100 })]);
  });

  it("submitted by the developer first: the developer gets their 3 tokens, the contract its 1, each once", async () => {
    const payment = await batchPayment();
    await chain.stopMining();
    let topUp: TopUp;
    try {
      const txHash = await pay(payment);
      const res = await submitTopUp(payment.dev, txHash);
      expect(res.status).toBe(201);
      topUp = (await res.json()) as TopUp;
      expect(topUp).toMatchObject({ status: "submitted", from: payment.wallet.address });
    } finally {
      await chain.startMining();
    }
    await chain.mine(requiredConfirmations + 1);
    const credited = await waitForTopUp(payment.dev, topUp.topUpId, (t) => t.status === "credited");
    expect(credited).toMatchObject({ tokenAmount: "3000000", credits: 300 });
    await eventually(
      () => creditsOf(payment.batchAccount),
      (entries) => entries.length === 1,
      20_000,
    );
    await watcherTicks();
    expect(await topUpEntries(payment.dev)).toEqual([expect.objectContaining({ amount: 300 })]);
    expect(await creditsOf(payment.batchAccount)).toEqual([expect.objectContaining({ amount: 100 })]);
    expect(await balanceOf(payment.dev)).toBe(payment.before + 300);
  });

  it("named by the developer several times at once while the watcher scans: each sender its own part, once", async () => {
    const payment = await batchPayment();
    const txHash = await pay(payment);
    await chain.mine(requiredConfirmations);
    const answers = await Promise.all(Array.from({ length: 4 }, () => submitTopUp(payment.dev, txHash)));
    expect(answers.map((a) => a.status).filter((s) => s === 201).length).toBeLessThanOrEqual(1);
    for (const answer of answers) expect((await answer.json()) as TopUp).toMatchObject({ credits: 300 });
    await eventually(
      () => creditsOf(payment.batchAccount),
      (entries) => entries.length === 1,
      20_000,
    );
    await watcherTicks();
    expect(await topUpEntries(payment.dev)).toEqual([expect.objectContaining({ amount: 300 })]);
    expect(await creditsOf(payment.batchAccount)).toEqual([expect.objectContaining({ amount: 100 })]);
  });
});

describe("the watcher", () => {
  it("credits a payment nobody submitted, and a payment from an address without an account once it first signs in", async () => {
    const { dev, wallet } = await payingDeveloper();
    const before = await balanceOf(dev);
    await chain.transfer(wallet, chain.treasury, 7n * token);
    const newcomer = await chain.newAccount();
    await chain.transfer(newcomer, chain.treasury, 9n * token);
    await chain.mine(requiredConfirmations);

    await eventually(
      () => balanceOf(dev),
      (balance) => balance === before + 700,
      20_000,
    );
    const [found] = ((await (await dev.session("/api/credits/top-ups")).json()) as { data: TopUp[] }).data;
    expect(found).toMatchObject({ status: "credited", credits: 700, from: wallet.address });

    await watcherTicks();
    const late = await signUpDeveloper(server.baseUrl, { account: newcomer });
    await eventually(
      () => balanceOf(late),
      (balance) => balance === 100 + 900,
      20_000,
    );
    expect(await topUpEntries(late)).toEqual([expect.objectContaining({ amount: 900 })]);
  });

  // PGlite runs one transaction at a time, so a scan and a sign-in cannot overlap there.
  it.skipIf(!usePostgres())(
    "credits a payment a scan recorded while its payer was signing in for the first time, unseen by that sign-in",
    async () => {
      const config = paymentsConfig();
      if (!config) throw new Error("the test server has payments configured");
      const newcomer = await chain.newAccount();
      await chain.stopMining();
      let late: Developer | undefined;
      try {
        const txHash = await chain.transfer(newcomer, chain.treasury, 4n * token);
        const head = await chain.blockNumber();
        const transfer = {
          txHash,
          from: newcomer.address,
          value: 4n * token,
          blockNumber: head + 1n,
          blockHash: txHash,
          logIndex: 0,
        };
        // The scan found no account for the payer; the payer signs in before the scan commits.
        await (
          await db()
        ).transaction(async (tx) => {
          await recordFoundTransfers(tx, config, [transfer], head + 1n, 6);
          late = await signUpDeveloper(server.baseUrl, { account: newcomer });
        });
      } finally {
        await chain.startMining();
      }
      await chain.mine(requiredConfirmations);
      const developer = late as Developer;
      await eventually(
        () => balanceOf(developer),
        (balance) => balance === 100 + 400,
        20_000,
      );
      expect(await topUpEntries(developer)).toEqual([expect.objectContaining({ amount: 400 })]);
    },
  );

  it("lists payments it recorded in one scan newest first, as the chain ordered them", async () => {
    const { dev, wallet } = await payingDeveloper();
    // One scan records every payment of its blocks in one transaction, so they share their created_at.
    const config = paymentsConfig();
    if (!config) throw new Error("the test server has payments configured");
    const hashes = ([7n, 8n, 9n] as const).map((n) => `0x${n.toString(16).padStart(64, "0")}` as Hash);
    const head = 10_000_000n;
    const transfers = hashes.map((txHash, i) => ({
      txHash,
      from: wallet.address,
      value: token,
      blockNumber: head - 10n + BigInt(i),
      blockHash: txHash,
      logIndex: 0,
    }));
    await (await db()).transaction((tx) => recordFoundTransfers(tx, config, transfers.reverse(), head, 6));
    const listed = ((await (await dev.session("/api/credits/top-ups")).json()) as { data: TopUp[] }).data;
    expect(new Set(listed.map((t) => t.createdAt)).size).toBe(1);
    expect(listed.map((t) => t.txHash)).toEqual([...hashes].reverse());
  });

  it("resumes after the RPC fails in the middle of a scan and after a restart of the watcher: nothing missed, nothing repeated", async () => {
    const payers = await Promise.all(Array.from({ length: 4 }, () => payingDeveloper()));
    const befores = await Promise.all(payers.map(({ dev }) => balanceOf(dev)));
    rpc.failMethodAfter("eth_getLogs", 1);
    for (const { wallet } of payers) {
      await chain.transfer(wallet, chain.treasury, token);
      await chain.mine(2);
    }
    await watcherTicks(10);
    // Restart the server's background services: the new watcher starts from the stored cursor.
    const { startNetworkServices, stopNetworkServices } = await import("@/lib/network/embedded");
    await stopNetworkServices();
    rpc.failMethodAfter("eth_getLogs");
    await startNetworkServices();
    for (const [i, { dev }] of payers.entries()) {
      await eventually(
        () => balanceOf(dev),
        (balance) => balance === befores[i] + 100,
        20_000,
      );
    }
    await watcherTicks();
    for (const { dev } of payers) expect(await topUpEntries(dev)).toHaveLength(1);
  });

  it("an RPC that refuses a log range (it caps results) is asked for halves down to one block; a block it always refuses holds the scan, never the re-checks", async () => {
    const blockOf = (hex: unknown) => BigInt(String(hex));
    // Ranges over one block are refused (as "more than 10000 results"), and so is the dense block alone.
    let dense: bigint | undefined;
    rpc.beforeForwarding("eth_getLogs", async (params) => {
      const { fromBlock, toBlock } = params[0] as { fromBlock?: string; toBlock?: string };
      if (fromBlock === undefined || toBlock === undefined) return undefined;
      const [from, to] = [blockOf(fromBlock), blockOf(toBlock)];
      if (to > from || (dense !== undefined && from <= dense && dense <= to))
        return { error: { code: -32005, message: "query returned more than 10000 results" } };
    });
    try {
      // Found by the watcher, one block at a time.
      const found = await payingDeveloper();
      const before = await balanceOf(found.dev);
      await chain.transfer(found.wallet, chain.treasury, 2n * token);
      await chain.mine(requiredConfirmations);
      await eventually(
        () => balanceOf(found.dev),
        (balance) => balance === before + 200,
        20_000,
      );
      // A block the RPC refuses even alone: the cursor waits at it, and a top-up named before its confirmations
      // is credited by the watcher's re-checks all the same.
      const stuck = await payingDeveloper();
      dense = (await chain.blockNumber()) + 1n;
      await chain.transfer(stuck.wallet, chain.treasury, token);
      const named = await payingDeveloper();
      const txHash = await chain.transfer(named.wallet, chain.treasury, 3n * token);
      const res = await submitTopUp(named.dev, txHash);
      expect(res.status).toBe(201);
      const topUp = (await res.json()) as TopUp;
      expect(topUp.status).toBe("confirming");
      await chain.mine(requiredConfirmations);
      const credited = await waitForTopUp(named.dev, topUp.topUpId, (t) => t.status === "credited");
      expect(credited.credits).toBe(300);
    } finally {
      rpc.beforeForwarding("eth_getLogs");
    }
    await expectLaterPaymentCredited();
  });

  it("one payment the database refuses does not stop the scan: the others in its block are credited, it is recorded as failed UNRECORDABLE, and one it could not record for now is recorded by the next scan", async () => {
    const [refused, interrupted, other, raced] = await Promise.all(Array.from({ length: 4 }, () => payingDeveloper()));
    const befores = await Promise.all([interrupted, other, raced].map(({ dev }) => balanceOf(dev)));
    // Faults injected through the database: `refused`'s payment breaks a rule of the table whenever it is
    // recorded as a payment (its own values, refused every time); `interrupted`'s meets a serialization
    // failure 5 times (the database's fault, gone on a later try), still failing once its block is final and
    // the cursor would pass it; `raced`'s meets a foreign-key violation twice (an integrity error that is not
    // the payment's own: a row it refers to, changing). A sequence counts the tries outside transactions.
    const d = await db();
    const address = (developer: { wallet: PrivateKeyAccount }) => developer.wallet.address.toLowerCase();
    await d.execute(sql.raw(`create sequence top_ups_test_tries`));
    await d.execute(sql.raw(`create sequence top_ups_test_races`));
    await d.execute(
      sql.raw(`create function top_ups_test_fault() returns trigger language plpgsql as $$
        begin
          if lower(new.from_address) = '${address(refused)}' and new.status <> 'failed' then
            raise exception 'refused for the test' using errcode = 'check_violation';
          end if;
          if lower(new.from_address) = '${address(interrupted)}' then
            if nextval('top_ups_test_tries') <= 5 then
              raise exception 'interrupted for the test' using errcode = 'serialization_failure';
            end if;
          end if;
          if lower(new.from_address) = '${address(raced)}' and new.status <> 'failed'
              and nextval('top_ups_test_races') <= 2 then
            raise exception 'raced for the test' using errcode = 'foreign_key_violation';
          end if;
          return new;
        end $$`),
    );
    await d.execute(
      sql.raw(`create trigger top_ups_test_fault before insert on top_ups
        for each row execute function top_ups_test_fault()`),
    );
    try {
      // One block holds the three payments, the two faulty ones first.
      await chain.stopMining();
      let refusedHash: Hash;
      try {
        refusedHash = await chain.transfer(refused.wallet, chain.treasury, token);
        await chain.transfer(interrupted.wallet, chain.treasury, 2n * token);
        await chain.transfer(other.wallet, chain.treasury, 3n * token);
        await chain.transfer(raced.wallet, chain.treasury, 4n * token);
      } finally {
        await chain.startMining();
      }
      await chain.mine(requiredConfirmations);
      for (const [i, { dev }] of [interrupted, other, raced].entries()) {
        await eventually(
          () => balanceOf(dev),
          (balance) => balance === befores[i] + (i + 2) * 100,
          20_000,
        );
      }
      const [recorded] = ((await (await refused.dev.session("/api/credits/top-ups")).json()) as { data: TopUp[] }).data;
      expect(recorded).toMatchObject({
        txHash: refusedHash.toLowerCase(),
        status: "failed",
        failureReason: "UNRECORDABLE",
        credits: 0,
      });

      // The scan moved past them: a later payment is credited too, and health never said degraded.
      await expectLaterPaymentCredited();
      for (const { dev } of [interrupted, other, raced]) expect(await topUpEntries(dev)).toHaveLength(1);
    } finally {
      await d.execute(sql.raw(`drop trigger top_ups_test_fault on top_ups`));
      await d.execute(sql.raw(`drop function top_ups_test_fault()`));
      await d.execute(sql.raw(`drop sequence top_ups_test_tries`));
      await d.execute(sql.raw(`drop sequence top_ups_test_races`));
    }
  });

  it("a payment the database fails to record every time, for a reason not its own, holds the scan a few ticks only (health degraded meanwhile), then is recorded as failed UNRECORDABLE and later payments are credited", async () => {
    const [stuck, later] = await Promise.all(Array.from({ length: 2 }, () => payingDeveloper()));
    const laterBefore = await balanceOf(later.dev);
    // A trigger that raises a plain exception (SQLSTATE P0001) whenever `stuck`'s payment is recorded as one.
    const d = await db();
    await d.execute(
      sql.raw(`create function top_ups_test_stuck() returns trigger language plpgsql as $$
        begin
          if lower(new.from_address) = '${stuck.wallet.address.toLowerCase()}' and new.status <> 'failed' then
            raise exception 'stuck for the test';
          end if;
          return new;
        end $$`),
    );
    await d.execute(
      sql.raw(`create trigger top_ups_test_stuck before insert on top_ups
        for each row execute function top_ups_test_stuck()`),
    );
    try {
      const stuckHash = await chain.transfer(stuck.wallet, chain.treasury, token);
      await chain.mine(requiredConfirmations);
      const health = async () =>
        ((await (await fetch(`${server.baseUrl}/api/health`)).json()) as { payments: string }).payments;
      await eventually(health, (payments) => payments === "degraded", 20_000);

      await chain.transfer(later.wallet, chain.treasury, 2n * token);
      await chain.mine(requiredConfirmations);
      await eventually(
        () => balanceOf(later.dev),
        (balance) => balance === laterBefore + 200,
        20_000,
      );
      const [recorded] = ((await (await stuck.dev.session("/api/credits/top-ups")).json()) as { data: TopUp[] }).data;
      expect(recorded).toMatchObject({
        txHash: stuckHash.toLowerCase(),
        status: "failed",
        failureReason: "UNRECORDABLE",
      });
      await eventually(health, (payments) => payments === "ok", 20_000);
    } finally {
      await d.execute(sql.raw(`drop trigger top_ups_test_stuck on top_ups`));
      await d.execute(sql.raw(`drop function top_ups_test_stuck()`));
    }
  });

  it("re-checks DROPPED top-ups in a small share of each tick, after the submitted and confirming ones: many DROPPED rows never crowd out a confirmation", async () => {
    const config = paymentsConfig();
    if (!config) throw new Error("the test server has payments configured");
    const { dev, wallet } = await payingDeveloper();
    const { findOrCreateAccount } = await import("@/lib/domain/accounts");
    const { accountId } = await findOrCreateAccount(wallet.address);
    const txHash = await chain.transfer(wallet, chain.treasury, token);
    const submitted = await submitTopUp(dev, txHash);
    expect(submitted.status).toBeLessThan(300);
    const confirming = await waitForTopUp(
      dev,
      ((await submitted.json()) as TopUp).topUpId,
      (t) => t.status === "confirming",
    );
    // Made-up hashes the RPC never knew, DROPPED long ago as far as their last check goes: stalest of all.
    const d = await db();
    const dropped = Array.from({ length: 60 }, (_, i) => ({
      chainId: config.chainId,
      txHash: `0x${(i + 1).toString(16).padStart(64, "d")}`,
      accountId,
      fromAddress: wallet.address,
      status: "failed" as const,
      failureReason: "DROPPED" as const,
      requiredConfirmations,
      checkedAt: new Date(0),
    }));
    await d.insert(topUps).values(dropped);
    try {
      const queue = await topUpsToReconcile(config, 50);
      expect(queue.map((row) => row.id)).toContain(confirming.topUpId);
      expect(queue.filter((row) => row.failureReason === "DROPPED").length).toBeLessThanOrEqual(10);
    } finally {
      await d.delete(topUps).where(
        inArray(
          topUps.txHash,
          dropped.map((row) => row.txHash),
        ),
      );
    }
  });
});

describe("amounts beyond what a balance can hold", () => {
  const refusedAsOutOfRange = async (res: Response) => {
    const error = await expectError(res, 422, "INVALID_PAYMENT");
    expect(error.details).toEqual({ reason: "AMOUNT_OUT_OF_RANGE" });
  };

  it("a transfer of 2^200 base units is refused (422 AMOUNT_OUT_OF_RANGE), recorded as failed, and the watcher goes on crediting others", async () => {
    const { dev, wallet } = await payingDeveloper();
    await chain.fund(wallet.address, { tokens: 2n ** 200n });
    const before = await balanceOf(dev);
    const huge = await chain.transfer(wallet, chain.treasury, 2n ** 200n);
    await chain.mine(requiredConfirmations);
    await refusedAsOutOfRange(await submitTopUp(dev, huge));
    // Whoever saw it first, it is one failed row with its reason, and naming it again says the same.
    await refusedAsOutOfRange(await submitTopUp(dev, huge));
    const [recorded] = ((await (await dev.session("/api/credits/top-ups")).json()) as { data: TopUp[] }).data;
    expect(recorded).toMatchObject({
      txHash: huge.toLowerCase(),
      status: "failed",
      failureReason: "AMOUNT_OUT_OF_RANGE",
      tokenAmount: (2n ** 200n).toString(),
      credits: 0,
    });

    // The watcher is not stuck on it: a later payment of someone else is found and credited.
    await expectLaterPaymentCredited();
    expect(await balanceOf(dev)).toBe(before);
  });

  it("a top-up whose every re-check fails (the RPC errs on its transaction) does not hold back the others' credits", async () => {
    const stuck = await payingDeveloper();
    const stuckHash = `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex")}`;
    expect((await submitTopUp(stuck.dev, stuckHash)).status).toBe(201);
    rpc.failCallsNaming(stuckHash, true);
    try {
      // Recorded after the stuck one, so re-checked after it (stalest first).
      const { dev, wallet } = await payingDeveloper();
      await chain.stopMining();
      let topUp: TopUp;
      try {
        const txHash = await chain.transfer(wallet, chain.treasury, token);
        topUp = (await (await submitTopUp(dev, txHash)).json()) as TopUp;
        expect(topUp.status).toBe("submitted");
      } finally {
        await chain.startMining();
      }
      await chain.mine(requiredConfirmations + 1);
      expect(await waitForTopUp(dev, topUp.topUpId, (t) => t.status === "credited")).toMatchObject({ credits: 100 });
    } finally {
      rpc.failCallsNaming(stuckHash, false);
    }
  });

  it("credits are exact up to 2^53 − 1 and a payment worth more is refused, never rounded", async () => {
    const { dev, wallet } = await payingDeveloper();
    const before = BigInt(await balanceOf(dev));
    const maxCredits = BigInt(Number.MAX_SAFE_INTEGER);
    // 1 credit = 10^4 base units of the 6-decimal token at 100 credits per token.
    const unitsFor = (credits: bigint) => (credits * token) / BigInt(creditsPerToken);
    await chain.fund(wallet.address, { tokens: unitsFor(2n * maxCredits) });

    const tooMuch = await chain.transfer(wallet, chain.treasury, unitsFor(maxCredits - before + 1n));
    await chain.mine(requiredConfirmations);
    await refusedAsOutOfRange(await submitTopUp(dev, tooMuch));

    const exact = await chain.transfer(wallet, chain.treasury, unitsFor(maxCredits - before));
    await chain.mine(requiredConfirmations);
    const res = await submitTopUp(dev, exact);
    expect([200, 201]).toContain(res.status);
    expect(await res.json()).toMatchObject({ status: "credited", credits: Number(maxCredits - before) });
    expect(await balanceOf(dev)).toBe(Number.MAX_SAFE_INTEGER);
    expect(await topUpEntries(dev)).toEqual([expect.objectContaining({ amount: Number(maxCredits - before) })]);
  });
});

describe("when the chain misbehaves", () => {
  it("a reorganisation before the required depth leaves the payment uncredited, and dropped when its transaction is gone", async () => {
    const { dev, wallet } = await payingDeveloper();
    const before = await balanceOf(dev);
    const snapshot = await chain.snapshot();
    const txHash = await chain.transfer(wallet, chain.treasury, 6n * token);
    const topUp = (await (await submitTopUp(dev, txHash)).json()) as TopUp;
    expect(topUp.status).toBe("confirming");

    await chain.revert(snapshot);
    await chain.mine(requiredConfirmations + 1);
    const dropped = await waitForTopUp(dev, topUp.topUpId, (t) => t.status === "failed");
    expect(dropped).toMatchObject({ failureReason: "DROPPED", creditedAt: null });
    await watcherTicks();
    expect(await balanceOf(dev)).toBe(before);
    expect(await topUpEntries(dev)).toHaveLength(0);
  });

  it("a payment marked DROPPED while the RPC lagged (null for a mined transaction) is credited once the RPC sees it, by the watcher or by naming it again", async () => {
    const lagged = async () => {
      const { dev, wallet } = await payingDeveloper();
      const before = await balanceOf(dev);
      const txHash = await chain.transfer(wallet, chain.treasury, 2n * token);
      const topUp = (await (await submitTopUp(dev, txHash)).json()) as TopUp;
      expect(topUp.status).toBe("confirming");
      // The node behind the RPC's load balancer has not seen the block: the transaction reads as unknown.
      rpc.hideTransaction(txHash, true);
      await chain.mine(requiredConfirmations + 1);
      await waitForTopUp(dev, topUp.topUpId, (t) => t.status === "failed" && t.failureReason === "DROPPED");
      // The scan's cursor has moved past its block meanwhile: only a re-check of the DROPPED top-up can find it.
      await watcherTicks(5);
      return { dev, txHash, topUp, before };
    };

    const byWatcher = await lagged();
    const byName = await lagged();

    // Just re-checked, so the watcher leaves it for a while (DROPPED top-ups are re-checked every 10 polls):
    // the answer below is the re-submission's own verification.
    await (
      await db()
    )
      .update(topUps)
      .set({ checkedAt: sql`now()` })
      .where(eq(topUps.id, byName.topUp.topUpId));
    await watcherTicks(2); // a tick that listed it before then has finished with it
    rpc.hideTransaction(byName.txHash, false);
    const again = await submitTopUp(byName.dev, byName.txHash);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ topUpId: byName.topUp.topUpId, status: "credited", credits: 200 });
    expect(await balanceOf(byName.dev)).toBe(byName.before + 200);

    rpc.hideTransaction(byWatcher.txHash, false);
    const credited = await waitForTopUp(byWatcher.dev, byWatcher.topUp.topUpId, (t) => t.status === "credited");
    expect(credited).toMatchObject({ credits: 200, failureReason: null });
    expect(await balanceOf(byWatcher.dev)).toBe(byWatcher.before + 200);
    await watcherTicks();
    expect(await topUpEntries(byName.dev)).toHaveLength(1);
    expect(await topUpEntries(byWatcher.dev)).toHaveLength(1);
  });

  it("an RPC that does not answer: 503 with Retry-After and nothing recorded, health degraded, and the payment credited once it is back", async () => {
    const { dev, wallet } = await payingDeveloper();
    const before = await balanceOf(dev);
    rpc.setDown(true);
    try {
      // Paid while the server cannot see the chain: nothing about it is known yet.
      const txHash = await chain.transfer(wallet, chain.treasury, 8n * token);
      await chain.mine(requiredConfirmations);
      const res = await submitTopUp(dev, txHash);
      await expectError(res, 503, "UNAVAILABLE");
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(((await (await dev.session("/api/credits/top-ups")).json()) as { data: TopUp[] }).data).toEqual([]);
      await eventually(
        async () => (await (await fetch(`${server.baseUrl}/api/health`)).json()) as { payments: string },
        (h) => h.payments === "degraded",
        10_000,
      );
      // The rest of the product serves meanwhile.
      expect((await dev.session("/api/credits/balance")).status).toBe(200);
    } finally {
      rpc.setDown(false);
    }
    await eventually(
      () => balanceOf(dev),
      (balance) => balance === before + 800,
      70_000,
    );
    expect(await topUpEntries(dev)).toHaveLength(1);
  }, 90_000);
});

describe("the low-balance alert (CONTRACT §11)", () => {
  it("is re-armed by a top-up: a charge that crosses the threshold again after a credited payment alerts again", async () => {
    const { dev, wallet } = await payingDeveloper();
    const threshold = await balanceOf(dev);
    expect(
      (
        await dev.session("/api/developers/me", {
          method: "PATCH",
          body: JSON.stringify({ lowBalanceThreshold: threshold }),
        })
      ).status,
    ).toBe(200);
    const endpoint = await dev.session("/api/developers/webhooks", {
      method: "POST",
      body: JSON.stringify({ url: "http://127.0.0.1:9/hook", events: ["credits.low"] }),
    });
    const { endpointId } = (await endpoint.json()) as { endpointId: string };
    const key = await dev.createApiKey(["services:execute"]);
    const alerts = async () => {
      const res = await dev.session(`/api/developers/webhooks/${endpointId}/deliveries?limit=100`);
      return ((await res.json()) as { data: { eventType: string }[] }).data.filter((d) => d.eventType === "credits.low")
        .length;
    };
    const charge = async () =>
      expect(
        (
          await dev.withKey(key, "/api/marketplace/services/token-count/execute", {
            method: "POST",
            body: JSON.stringify({ input: { text: "hi" } }),
          })
        ).status,
      ).toBe(202);

    await charge();
    expect(await alerts()).toBe(1);
    await charge();
    expect(await alerts()).toBe(1);

    // Buy back exactly what the two charges spent: the balance is at the threshold again (re-armed).
    const spent = threshold - (await balanceOf(dev));
    await chain.transfer(wallet, chain.treasury, (BigInt(spent) * token) / BigInt(creditsPerToken));
    await chain.mine(requiredConfirmations);
    await eventually(
      () => balanceOf(dev),
      (balance) => balance === threshold,
      20_000,
    );
    expect(await alerts()).toBe(1);
    await charge();
    expect(await alerts()).toBe(2);
  });
});

describe("the operator's reconciliation (npm run payments -- reconcile)", () => {
  it("lists every transfer to the treasury in a block range beside its top-up and account, and what awaits an account", async () => {
    const { dev, wallet } = await payingDeveloper();
    const credited = await chain.transfer(wallet, chain.treasury, 2n * token);
    const stranger = await chain.newAccount();
    const unattributed = await chain.transfer(stranger, chain.treasury, 3n * token);
    await chain.mine(requiredConfirmations);
    await eventually(
      () => topUpEntries(dev),
      (entries) => entries.length === 1,
      20_000,
    );
    await watcherTicks();

    const { runOperatorCommand } = await import("@/lib/operator/commands");
    const report = (await runOperatorCommand("payments.reconcile", { fromBlock: 0 })) as {
      transfers: {
        txHash: string;
        from: string;
        amount: string;
        topUp: string;
        credits: number | null;
        account: string | null;
      }[];
      totals: { received: string; credited: string; awaitingAccount: string };
    };
    expect(report.transfers).toContainEqual(
      expect.objectContaining({
        blockNumber: expect.any(Number),
        txHash: credited.toLowerCase(),
        from: wallet.address,
        amount: "2",
        topUp: "credited",
        credits: 200,
        account: wallet.address,
        unaccounted: "0",
      }),
    );
    expect(report.transfers).toContainEqual(
      expect.objectContaining({
        blockNumber: expect.any(Number),
        txHash: unattributed.toLowerCase(),
        from: stranger.address,
        amount: "3",
        topUp: "confirming",
        credits: 300,
        account: null,
        unaccounted: "0",
      }),
    );
    expect(Number(report.totals.received)).toBeGreaterThanOrEqual(5);
    expect(Number(report.totals.awaitingAccount)).toBeGreaterThanOrEqual(3);
  });
});
