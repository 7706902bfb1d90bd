// Pay per call with x402 (CONTRACT §15) against a real chain: ganache with a solc-compiled EIP-3009 token, the
// server reading and settling through a relay the tests can take down, and callers paying with the official
// x402 client (@x402/fetch with the @x402/evm exact scheme). Money moves once, and the job follows it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wrapFetchWithPaymentFromConfig, x402Client } from "@x402/fetch";
import { ExactEvmScheme } from "@x402/evm";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { toHex, type Address, type Hex } from "viem";
import { payPerCall } from "@execution-network/client";
import { authorizedTokenAbi, type LocalChain } from "../support/chain";
import { signIn } from "../support/developer";
import { eventually } from "../support/jobs";
import type { RpcProxy } from "../support/rpc-proxy";
import type { TestServer } from "../support/test-server";
import {
  officialPayment as officialPaymentOn,
  paymentResponse,
  price,
  signedAuthorization,
  startX402,
  tokenBalance as tokenBalanceOn,
  type AuthorizationTerms,
  type X402World,
} from "../support/x402";
import { eq } from "drizzle-orm";
import { x402Payments } from "@/lib/db/schema";
import { db } from "@/lib/domain/database";
import { x402Config } from "@/lib/env";
import { perCallPriceOf } from "@/lib/payments/x402/offer";

const input = { input: { text: "Pay per call, then run." } };
const metricsToken = "metrics-token-for-x402";

let world: X402World;
let chain: LocalChain;
let rpc: RpcProxy;
let server: TestServer;
let network: `eip155:${number}`;
let settler: Address;

beforeAll(async () => {
  // Every test pays from this one client address: more than a minute's allowance.
  world = await startX402({ X402_RATE_PER_MINUTE: "0", METRICS_TOKEN: metricsToken });
  ({ chain, rpc, server, network, settler } = world);
}, 90_000);

afterAll(async () => {
  await world?.close();
});

const executeUrl = (serviceId = "token-count") => `${server.baseUrl}/api/marketplace/services/${serviceId}/execute`;

function post(headers: Record<string, string> = {}, body: unknown = input): RequestInit {
  return { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) };
}

/** The official client, as an agent with a wallet sets it up (it pays only tokens it is told about). */
const payingFetch = (account: PrivateKeyAccount) =>
  wrapFetchWithPaymentFromConfig(fetch, {
    schemes: [{ network, client: new ExactEvmScheme(account) }],
    spendControls: { allowedAssets: [{ network, asset: chain.token }] },
  });

async function offer(serviceId = "token-count"): Promise<PaymentRequired> {
  const res = await fetch(executeUrl(serviceId), post());
  expect(res.status).toBe(402);
  return decodePaymentRequiredHeader(res.headers.get("payment-required") ?? "");
}

const officialPayment = (account: PrivateKeyAccount, required: PaymentRequired) =>
  officialPaymentOn(chain, account, required);

/** A hand-made authorization (to break one term at a time), signed by `signer` for `from`. */
const authorization = (
  signer: PrivateKeyAccount,
  requirement: PaymentRequirements,
  terms: Partial<AuthorizationTerms> = {},
) => signedAuthorization(chain, signer, requirement, terms);

const tokenBalance = (address: Address) => tokenBalanceOn(chain, address);
describe("the offer", () => {
  it("answers an execute without credentials with 402: PAYMENT-REQUIRED (v2) and the v1 body, priced from the credits", async () => {
    const res = await fetch(executeUrl(), post());
    expect(res.status).toBe(402);
    const required = decodePaymentRequiredHeader(res.headers.get("payment-required") ?? "");
    const requirement = {
      scheme: "exact",
      network,
      amount: price.toString(),
      asset: chain.token,
      payTo: chain.treasury,
      maxTimeoutSeconds: 300,
      extra: { name: "USD Coin", version: "2" },
    };
    expect(required).toEqual({
      x402Version: 2,
      error: expect.any(String),
      resource: {
        url: expect.stringMatching(/\/api\/marketplace\/services\/token-count\/execute$/),
        description: expect.any(String),
        mimeType: "application/json",
      },
      accepts: [requirement],
    });
    const { amount, ...v1 } = requirement;
    expect(await res.json()).toEqual({
      x402Version: 1,
      error: expect.any(String),
      accepts: [
        {
          ...v1,
          maxAmountRequired: amount,
          resource: required.resource.url,
          description: expect.any(String),
          mimeType: "application/json",
        },
      ],
    });
  });

  it("prices each service by its own credit cost (text-summarize costs 2 credits)", async () => {
    expect((await offer("text-summarize")).accepts[0].amount).toBe((2n * price).toString());
  });

  it("answers an unknown service 404 and an invalid body 400, before any offer", async () => {
    const unknown = await fetch(executeUrl("no-such-service"), post());
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("payment-required")).toBeNull();
    const invalid = await fetch(executeUrl(), post({}, { input: {}, extra: 1 }));
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get("payment-required")).toBeNull();
  });

  it("the service page's per-call price is the offer's amount, in the token", async () => {
    for (const [serviceId, creditCost] of [
      ["token-count", 1],
      ["text-summarize", 2],
    ] as const) {
      const shown = await perCallPriceOf(x402Config(), creditCost);
      expect(shown?.amount.toString()).toBe((await offer(serviceId)).accepts[0].amount);
    }
    expect((await perCallPriceOf(x402Config(), 1))?.text).toBe("0.01 USDC");
    expect(await perCallPriceOf(undefined, 1)).toBeUndefined();
  });

  it("reads the token's EIP-712 domain from the contract", async () => {
    const read = (functionName: "name" | "version") =>
      chain.publicClient.readContract({ address: chain.token, abi: authorizedTokenAbi, functionName });
    expect((await offer()).accepts[0].extra).toEqual({ name: await read("name"), version: await read("version") });
  });
});

describe("paying and running", () => {
  it("runs the call the official client pays for: 202, the job, a jt_ token, PAYMENT-RESPONSE; the money moved once", async () => {
    const payer = await chain.newAccount();
    const [payerBefore, treasuryBefore] = await Promise.all([
      tokenBalance(payer.address),
      tokenBalance(chain.treasury),
    ]);

    const res = await payingFetch(payer)(executeUrl(), post());
    expect(res.status).toBe(202);
    const job = await res.json();
    expect(job).toMatchObject({ serviceId: "token-count", creditCost: 1, input: input.input });
    expect(job.accessToken).toMatch(/^jt_[A-Za-z0-9_-]{43}$/);
    expect(res.headers.get("location")).toBe(`/api/developers/jobs/${job.jobId}`);
    const settled = paymentResponse(res);
    expect(settled).toEqual({
      success: true,
      transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      network,
      payer: payer.address,
    });
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: settled.transaction as Hex });
    expect(receipt.status).toBe("success");

    expect(await tokenBalance(payer.address)).toBe(payerBefore - price);
    expect(await tokenBalance(chain.treasury)).toBe(treasuryBefore + price);
  });

  it("the payer's account is the wallet's, without starter credits: signing in later shows the job and the top-up", async () => {
    const payer = await chain.newAccount();
    const res = await payingFetch(payer)(executeUrl(), post());
    expect(res.status).toBe(202);
    const { jobId } = await res.json();
    const { transaction } = paymentResponse(res);

    const { cookie } = await signIn(server.baseUrl, payer);
    const session = (path: string) => fetch(`${server.baseUrl}${path}`, { headers: { cookie } });
    const jobs = await (await session("/api/developers/jobs")).json();
    expect(jobs.data.map((j: { jobId: string }) => j.jobId)).toEqual([jobId]);
    const topUps = await (await session("/api/credits/top-ups")).json();
    expect(topUps.data).toEqual([
      expect.objectContaining({
        txHash: transaction,
        from: payer.address,
        tokenAmount: price.toString(),
        credits: 1,
        status: "credited",
      }),
    ]);
    const history = await (await session("/api/credits/history")).json();
    expect(history.data.map((e: { type: string; amount: number }) => [e.type, e.amount])).toEqual([
      ["charge", -1],
      ["topup", 1],
    ]);
    expect((await (await session("/api/credits/balance")).json()).balance).toBe(0);
  });

  it("keeps what was paid above the price on the payer's account", async () => {
    const payer = await chain.newAccount();
    const required = await offer();
    const res = await fetch(
      executeUrl(),
      post({ "payment-signature": await authorization(payer, required.accepts[0], { value: 5n * price }) }),
    );
    expect(res.status).toBe(202);
    const { cookie } = await signIn(server.baseUrl, payer);
    const balance = await (await fetch(`${server.baseUrl}/api/credits/balance`, { headers: { cookie } })).json();
    expect(balance.balance).toBe(4);
  });
});

describe("one authorization, one job", () => {
  it("the same authorization sent again without an Idempotency-Key is refused (nonce_used) and settles nothing", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(payer, await offer());
    const first = await fetch(executeUrl(), post({ "payment-signature": header }));
    expect(first.status).toBe(202);
    const treasury = await tokenBalance(chain.treasury);

    const again = await fetch(executeUrl(), post({ "payment-signature": header }));
    expect(again.status).toBe(402);
    expect(paymentResponse(again)).toMatchObject({ success: false, errorReason: "nonce_used" });
    expect(again.headers.get("payment-required")).toBeTruthy();
    expect(await tokenBalance(chain.treasury)).toBe(treasury);
  });

  it("20 concurrent requests with one authorization and one Idempotency-Key: one job, settled once, 19 replays", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(payer, await offer());
    const treasury = await tokenBalance(chain.treasury);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(executeUrl(), post({ "payment-signature": header, "idempotency-key": "burst-1" })),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(202));
    const bodies = await Promise.all(answers.map((r) => r.json()));
    expect(new Set(bodies.map((b) => b.jobId)).size).toBe(1);
    expect(answers.filter((r) => r.headers.get("idempotent-replayed") === "true")).toHaveLength(19);
    expect(await tokenBalance(chain.treasury)).toBe(treasury + price);
    expect(new Set(answers.map((r) => paymentResponse(r).transaction)).size).toBe(1);
  });

  it("20 concurrent requests with one authorization and no key: one 202, 19 × 402 nonce_used", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(payer, await offer());
    const treasury = await tokenBalance(chain.treasury);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => fetch(executeUrl(), post({ "payment-signature": header }))),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([202, ...Array(19).fill(402)]);
    for (const r of answers.filter((a) => a.status === 402))
      expect(paymentResponse(r)).toMatchObject({ success: false, errorReason: "nonce_used" });
    expect(await tokenBalance(chain.treasury)).toBe(treasury + price);
  });

  it("a retry with the same Idempotency-Key and a new authorization gets the same job and pays nothing", async () => {
    const payer = await chain.newAccount();
    const required = await offer();
    const first = await fetch(
      executeUrl(),
      post({ "payment-signature": await officialPayment(payer, required), "idempotency-key": "k-2" }),
    );
    expect(first.status).toBe(202);
    const balance = await tokenBalance(payer.address);
    const retry = await fetch(
      executeUrl(),
      post({ "payment-signature": await officialPayment(payer, required), "idempotency-key": "k-2" }),
    );
    expect(retry.status).toBe(202);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect((await retry.json()).jobId).toBe((await first.json()).jobId);
    expect(await tokenBalance(payer.address)).toBe(balance);
  });
  it("an Idempotency-Key replay needs the payer's proven signature: a forged one naming the payer gets no job and no token", async () => {
    const payer = await chain.newAccount();
    const required = await offer();
    const paid = await fetch(
      executeUrl(),
      post({ "payment-signature": await officialPayment(payer, required), "idempotency-key": "k-victim" }),
    );
    expect(paid.status).toBe(202);
    // The payer's address is public (its Transfer logs); a signature that is not an EOA's 65 bytes cannot be
    // recovered here and must be proven by the chain before it can stand for the payer.
    const attacker = privateKeyToAccount(generatePrivateKey());
    const forged = await authorization(attacker, required.accepts[0], { from: payer.address });
    const payload = JSON.parse(Buffer.from(forged, "base64").toString());
    payload.payload.signature = `0x${"ab".repeat(66)}`;
    const res = await fetch(
      executeUrl(),
      post({ "payment-signature": encodePaymentSignatureHeader(payload), "idempotency-key": "k-victim" }),
    );
    expect(res.status).toBe(402);
    expect(res.headers.get("idempotent-replayed")).toBeNull();
    const body = await res.json();
    expect(body.accessToken).toBeUndefined();
    expect(body.jobId).toBeUndefined();
  });
});

describe("refusals: 402 with a fresh offer and PAYMENT-RESPONSE {success: false, errorReason}, nothing moved", () => {
  async function expectRefused(header: string, errorReason: string, headerName = "payment-signature") {
    const treasury = await tokenBalance(chain.treasury);
    const res = await fetch(executeUrl(), post({ [headerName]: header }));
    expect(res.status).toBe(402);
    expect(paymentResponse(res)).toMatchObject({ success: false, errorReason, network });
    expect(decodePaymentRequiredHeader(res.headers.get("payment-required") ?? "").accepts[0].amount).toBe(
      price.toString(),
    );
    expect(await tokenBalance(chain.treasury)).toBe(treasury);
  }

  it("an amount below the price: invalid_amount", async () => {
    const payer = await chain.newAccount();
    await expectRefused(
      await authorization(payer, (await offer()).accepts[0], { value: price - 1n }),
      "invalid_amount",
    );
  });

  it("outside its window (expired, or not yet valid): expired", async () => {
    const payer = await chain.newAccount();
    const now = BigInt(Math.floor(Date.now() / 1000));
    const requirement = (await offer()).accepts[0];
    await expectRefused(await authorization(payer, requirement, { validBefore: now - 1n }), "expired");
    await expectRefused(await authorization(payer, requirement, { validAfter: now + 600n }), "expired");
    // Past the offer's maxTimeoutSeconds (300) and a minute's clock allowance: a settlement that reverts stays
    // settling until validBefore, so a payer must not choose how long.
    await expectRefused(await authorization(payer, requirement, { validBefore: now + 3600n }), "expired");
  });

  it("signed by someone else than `from`: invalid_signature", async () => {
    const payer = await chain.newAccount();
    const other = privateKeyToAccount(generatePrivateKey());
    await expectRefused(
      await authorization(other, (await offer()).accepts[0], { from: payer.address }),
      "invalid_signature",
    );
  });

  it("an authorization paying another payee (the echo says ours): invalid_signature", async () => {
    const payer = await chain.newAccount();
    const elsewhere = privateKeyToAccount(generatePrivateKey()).address;
    await expectRefused(await authorization(payer, (await offer()).accepts[0], { to: elsewhere }), "invalid_signature");
  });

  it("a payer without the tokens: insufficient_funds", async () => {
    const payer = await chain.newAccount({ tokens: price - 1n });
    await expectRefused(await officialPayment(payer, await offer()), "insufficient_funds");
  });

  it("another network or token: wrong_network", async () => {
    const payer = await chain.newAccount();
    const required = await offer();
    const elsewhere = { ...required, accepts: [{ ...required.accepts[0], network: "eip155:1" as const }] };
    const client = new x402Client().register("eip155:1", new ExactEvmScheme(payer));
    client.setSpendControls({ allowedAssets: true });
    await expectRefused(encodePaymentSignatureHeader(await client.createPaymentPayload(elsewhere)), "wrong_network");
  });

  it("a malformed payment header is 400 in the error envelope", async () => {
    const valid = JSON.parse(
      Buffer.from(await officialPayment(await chain.newAccount(), await offer()), "base64").toString(),
    );
    const beyondUint256 = structuredClone(valid);
    beyondUint256.payload.authorization.validBefore = (2n ** 256n).toString();
    for (const header of [
      "not base64!",
      Buffer.from("{}").toString("base64"),
      Buffer.from('{"x402Version":2}').toString("base64"),
      encodePaymentSignatureHeader(beyondUint256),
    ]) {
      const res = await fetch(executeUrl(), post({ "payment-signature": header }));
      expect(res.status).toBe(400);
      expect((await res.json()).error.code).toBe("INVALID_REQUEST");
    }
  });

  it("a settlement that reverts on-chain creates nothing: 503 while its authorization stays valid (x402-review.test.ts)", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(payer, await offer());
    // Between the simulation and the inclusion, the payer moves its tokens away: the settlement is mined and reverts.
    rpc.beforeForwarding("eth_sendRawTransaction", async () => {
      rpc.beforeForwarding("eth_sendRawTransaction");
      await chain.transfer(payer, chain.deployer.address, await tokenBalance(payer.address));
    });
    const treasury = await tokenBalance(chain.treasury);
    const res = await fetch(executeUrl(), post({ "payment-signature": header }));
    expect(res.status).toBe(503);
    expect(await tokenBalance(chain.treasury)).toBe(treasury);
    const { cookie } = await signIn(server.baseUrl, payer);
    const jobs = await (await fetch(`${server.baseUrl}/api/developers/jobs`, { headers: { cookie } })).json();
    expect(jobs.data).toEqual([]);
  });
});

describe("the RPC down", () => {
  it("answers 503 with Retry-After and charges nothing; the same authorization pays once it is back", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(payer, await offer());
    const before = await tokenBalance(payer.address);
    rpc.setDown(true);
    try {
      const res = await fetch(executeUrl(), post({ "payment-signature": header }));
      expect(res.status).toBe(503);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await res.json()).error.code).toBe("UNAVAILABLE");
    } finally {
      rpc.setDown(false);
    }
    expect(await tokenBalance(payer.address)).toBe(before);
    const retry = await fetch(executeUrl(), post({ "payment-signature": header }));
    expect(retry.status).toBe(202);
    expect(await tokenBalance(payer.address)).toBe(before - price);
  });
});

describe("an RPC error is not a refusal", () => {
  it("a JSON-RPC error during the simulation answers 503 with Retry-After and charges nothing; the payment goes through later", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(payer, await offer());
    // The signature's r appears only in the settlement's calldata: the simulation's calls alone get an internal error.
    const r = JSON.parse(Buffer.from(header, "base64").toString()).payload.signature.slice(2, 66);
    const before = await tokenBalance(payer.address);
    rpc.failCallsNaming(r, true);
    try {
      const res = await fetch(executeUrl(), post({ "payment-signature": header }));
      expect(res.status).toBe(503);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await res.json()).error.code).toBe("UNAVAILABLE");
    } finally {
      rpc.failCallsNaming(r, false);
    }
    expect(await tokenBalance(payer.address)).toBe(before);
    const retry = await fetch(executeUrl(), post({ "payment-signature": header }));
    expect(retry.status).toBe(202);
    expect(await tokenBalance(payer.address)).toBe(before - price);
  });
});

describe("the access token", () => {
  it("reads that one job, its events, logs, telemetry and receipt (Authorization: Bearer jt_…), and nothing else", async () => {
    const payer = await chain.newAccount();
    const res = await payingFetch(payer)(executeUrl(), post());
    const { jobId, accessToken } = await res.json();
    const bearer = { authorization: `Bearer ${accessToken}` };
    const read = (path: string) => fetch(`${server.baseUrl}${path}`, { headers: bearer });

    const job = await eventually(
      async () => (await read(`/api/developers/jobs/${jobId}`)).json(),
      (j) => j.status === "completed",
      30_000,
    );
    expect(job).toMatchObject({ jobId, serviceId: "token-count", result: expect.any(Object) });
    expect((await read(`/api/developers/jobs/${jobId}/logs`)).status).toBe(200);
    expect(await (await read(`/api/developers/jobs/${jobId}/receipt`)).json()).toMatchObject({
      primaryType: "ExecutionReceipt",
      message: { jobId },
    });
    const telemetry = await (await read(`/api/developers/jobs/${jobId}/telemetry`)).json();
    expect(telemetry.data.at(-1).type).toBe("EXECUTION_COMPLETED");
    const events = await fetch(`${server.baseUrl}/api/developers/jobs/${jobId}/events`, {
      headers: { ...bearer, accept: "text/event-stream" },
    });
    expect(events.status).toBe(200);
    expect(events.headers.get("content-type")).toMatch(/^text\/event-stream/);
    await events.body?.cancel();

    // Another job (even the payer's own) is not found; every other route refuses the token.
    const other = await (await payingFetch(payer)(executeUrl(), post())).json();
    expect((await read(`/api/developers/jobs/${other.jobId}`)).status).toBe(404);
    expect((await read(`/api/developers/jobs/${other.jobId}/logs`)).status).toBe(404);
    expect((await read(`/api/developers/jobs/${other.jobId}/receipt`)).status).toBe(404);
    for (const path of ["/api/developers/jobs", "/api/credits/balance", "/api/credits/top-ups", "/api/developers/me"])
      expect((await read(path)).status, path).toBe(401);
    expect(
      (await fetch(`${server.baseUrl}/api/developers/jobs/${jobId}`, { headers: { authorization: "Bearer jt_nope" } }))
        .status,
    ).toBe(401);
  });
});

describe("the client library", () => {
  it("pays per call with a viem account and no API key, within the caller's maxAmount", async () => {
    const payer = await chain.newAccount();
    const before = await tokenBalance(payer.address);
    const paid = await payPerCall({
      baseUrl: server.baseUrl,
      signer: payer,
      serviceId: "token-count",
      input: input.input,
      maxAmount: price,
    });
    expect(paid.job).toMatchObject({ serviceId: "token-count", creditCost: 1 });
    expect(paid.accessToken).toMatch(/^jt_/);
    expect(paid.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await tokenBalance(payer.address)).toBe(before - price);
    await expect(
      payPerCall({
        baseUrl: server.baseUrl,
        signer: payer,
        serviceId: "token-count",
        input: input.input,
        maxAmount: price - 1n,
      }),
    ).rejects.toThrow(/more than maxAmount/);
    const poor = await chain.newAccount({ tokens: 1n });
    await expect(
      payPerCall({
        baseUrl: server.baseUrl,
        signer: poor,
        serviceId: "token-count",
        input: input.input,
        maxAmount: price,
      }),
    ).rejects.toMatchObject({ status: 402, details: { errorReason: "insufficient_funds" } });
  });
});

describe("health", () => {
  it("shows the settler's ETH running low, and its balance in the metrics", async () => {
    const health = async () => (await (await fetch(`${server.baseUrl}/api/health`)).json()).settler;
    const balanceMetric = async () => {
      const scrape = await (
        await fetch(`${server.baseUrl}/api/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })
      ).text();
      return /^execution_x402_settler_balance_wei (\S+)$/m.exec(scrape)?.[1];
    };
    expect(await health()).toBe("ok");
    expect(Number(await balanceMetric())).toBe(Number(await chain.publicClient.getBalance({ address: settler })));
    const setBalance = (wei: bigint) =>
      fetch(chain.rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "evm_setAccountBalance", params: [settler, toHex(wei)] }),
      });
    await setBalance(10n ** 15n);
    try {
      await eventually(health, (state) => state === "low", 5_000);
      expect(await balanceMetric()).toBe("1000000000000000");
    } finally {
      await setBalance(10n ** 18n);
    }
    await eventually(health, (state) => state === "ok", 5_000);
  });
  it.each([
    ["settling for an hour", { settlingSince: new Date(Date.now() - 3_600_000) }],
    // A row an instance from before settling_since wrote, during a rolling upgrade.
    [
      "created an hour ago, with no settling_since",
      { settlingSince: null, createdAt: new Date(Date.now() - 3_600_000) },
    ],
  ])(
    "shows the settler stuck while a settlement stays unresolved, though the sweep's looks keep its row fresh: %s",
    async (_, since) => {
      const health = async () => (await (await fetch(`${server.baseUrl}/api/health`)).json()).settler;
      const randomHash = () => toHex(crypto.getRandomValues(new Uint8Array(32)));
      const minedNonce = await chain.publicClient.getTransactionCount({ address: settler });
      // Settling for an hour, never replaced (it waits behind a nonce far ahead: only rebroadcast), and looked at by
      // the sweep just now (its updatedAt moved, as markLookedAt moves it on every look that leaves it unchanged).
      const [row] = await (
        await db()
      )
        .insert(x402Payments)
        .values({
          chainId: chain.chainId,
          tokenAddress: chain.token,
          fromAddress: privateKeyToAccount(generatePrivateKey()).address,
          nonce: randomHash(),
          status: "settling",
          serviceId: "token-count",
          fingerprint: "never-resolves",
          value: price.toString(),
          input: input.input,
          placement: "any",
          settlementTxHash: randomHash(),
          // A transaction the node refuses (its sender has no ETH): every rebroadcast fails, and the row stays.
          settlementRawTx: await privateKeyToAccount(generatePrivateKey()).signTransaction({
            to: chain.treasury,
            value: 0n,
            gas: 21_000n,
            gasPrice: 1n,
            nonce: 0,
            chainId: chain.chainId,
          }),
          settlerNonce: minedNonce + 1_000,
          ...since,
          updatedAt: new Date(),
        })
        .returning({ id: x402Payments.id });
      try {
        expect(await eventually(health, (state) => state === "stuck", 5_000)).toBe("stuck");
      } finally {
        await (await db()).delete(x402Payments).where(eq(x402Payments.id, row.id));
      }
      await eventually(health, (state) => state === "ok", 5_000);
    },
  );
});

describe("the paid job", () => {
  it("runs to completion on the network's node", async () => {
    const payer = await chain.newAccount();
    const res = await payingFetch(payer)(executeUrl(), post());
    const { jobId } = await res.json();
    const { cookie } = await signIn(server.baseUrl, payer);
    const job = await eventually(
      async () => (await fetch(`${server.baseUrl}/api/developers/jobs/${jobId}`, { headers: { cookie } })).json(),
      (j) => j.status === "completed" || j.status === "failed",
      30_000,
    );
    expect(job.status).toBe("completed");
  });
});
