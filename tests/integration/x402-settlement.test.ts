// Pay per call (CONTRACT §15) when settling goes wrong, on ganache with the solc-compiled EIP-3009 token and the
// official x402 client: a keyed retry with a new authorization while the first settles, a broadcast whose
// answer is lost, a settlement the request stops waiting for, a dropped settlement that holds the settler's
// nonce sequence back, and the per-payer rate limit that only a proven signature spends. Money moves once, the
// job follows it, and what no request waits for any more is resolved by the settlement sweep.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import {
  encodeFunctionData,
  keccak256,
  parseSignature,
  parseTransaction,
  serializeCompactSignature,
  signatureToCompactSignature,
  toHex,
  type Address,
  type Hex,
} from "viem";
import { eq, inArray } from "drizzle-orm";
import { accounts, idempotencyKeys, services, topUps, x402Payments } from "@/lib/db/schema";
import { db } from "@/lib/domain/database";
import { x402Config } from "@/lib/env";
import { eip3009Abi, findAuthorizationUse } from "@/lib/payments/x402/chain";
import { transferElsewhere } from "@/lib/engine/paid-settlement";
import type { LocalChain } from "../support/chain";
import { signIn } from "../support/developer";
import { eventually } from "../support/jobs";
import { startRpcProxy, type RpcProxy } from "../support/rpc-proxy";
import type { TestServer } from "../support/test-server";
import {
  officialPayment as officialPaymentOn,
  paymentResponse,
  price,
  signedAuthorization,
  cancelAuthorization,
  paymentPayload,
  startX402,
  submitAuthorization,
  tokenBalance as tokenBalanceOn,
  type X402World,
} from "../support/x402";

const input = { input: { text: "Settle it, whatever happens." } };
const settlementTimeoutMs = 3_000;
const metricsToken = "metrics-token-for-x402-settlement";
/** Paid calls a minute per payer and per client address: small, so a test can spend one. */
const ratePerMinute = 3;

let world: X402World;
let chain: LocalChain;
let rpc: RpcProxy;
let server: TestServer;
let settler: Address;

beforeAll(async () => {
  world = await startX402({
    PAYMENTS_SETTLEMENT_TIMEOUT_MS: String(settlementTimeoutMs),
    X402_RATE_PER_MINUTE: String(ratePerMinute),
    // Each request names its own client address (X-Forwarded-For), so only the limit a test spends is spent.
    TRUST_PROXY: "true",
    METRICS_TOKEN: metricsToken,
  });
  ({ chain, rpc, server, settler } = world);
}, 90_000);

afterAll(async () => {
  await world?.close();
});

const executeUrl = (serviceId = "token-count") => `${server.baseUrl}/api/marketplace/services/${serviceId}/execute`;
let clients = 0;
const freshClient = () => `10.45.${Math.floor(++clients / 250)}.${clients % 250}`;

function post(headers: Record<string, string> = {}, client = freshClient(), body: unknown = input): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": client, ...headers },
    body: JSON.stringify(body),
  };
}

async function offer(serviceId = "token-count"): Promise<PaymentRequired> {
  const res = await fetch(executeUrl(serviceId), post());
  expect(res.status).toBe(402);
  return decodePaymentRequiredHeader(res.headers.get("payment-required") ?? "");
}

const officialPayment = (account: PrivateKeyAccount, required: PaymentRequired) =>
  officialPaymentOn(chain, account, required);

/**
 * A hand-made authorization for `from` signed by `signer` (someone else: a forgery), its signature optionally
 * replaced, valid for `validSeconds`.
 */
const forgedPayment = (
  signer: PrivateKeyAccount,
  from: Address,
  requirement: PaymentRequirements,
  signature?: Hex | ((signed: Hex) => Hex),
  validSeconds = 300n,
) =>
  signedAuthorization(chain, signer, requirement, {
    from,
    signature,
    validBefore: BigInt(Math.floor(Date.now() / 1000)) + validSeconds,
  });

/** The payer's own authorization with its signature in ERC-2098's 64 bytes: valid, but only the token proves it. */
const compactPayment = (payer: PrivateKeyAccount, requirement: PaymentRequirements) =>
  forgedPayment(payer, payer.address, requirement, (signed) =>
    serializeCompactSignature(signatureToCompactSignature(parseSignature(signed))),
  );

/** The signature's r: it appears in the settlement's calldata only (simulation, estimate, the transaction). */
const signatureMark = (header: string) => paymentPayload(header).signature.slice(2, 66);

const tokenBalance = (address: Address) => tokenBalanceOn(chain, address);

/**
 * What the payer finds on signing in: their jobs, top-ups and the payment's ledger entries (the top-up and the
 * job's charge; signing in first may have opened the account with starter credits, which are left out).
 */
async function payerView(payer: PrivateKeyAccount) {
  const { cookie } = await signIn(server.baseUrl, payer);
  const read = async (path: string) => (await fetch(`${server.baseUrl}${path}`, { headers: { cookie } })).json();
  // One after the other, the jobs first: the job, its top-up and its ledger entries are committed together, so
  // once the job is seen the others are too (read at once, the history could be read before the commit).
  const jobs = await read("/api/developers/jobs");
  const topUps = await read("/api/credits/top-ups");
  const history = await read("/api/credits/history");
  return {
    jobIds: (jobs.data as { jobId: string }[]).map((j) => j.jobId),
    topUps: topUps.data as { txHash: string; status: string; credits: number }[],
    ledger: (history.data as { type: string; amount: number }[])
      .filter((e) => e.type === "topup" || e.type === "charge")
      .map((e) => [e.type, e.amount]),
  };
}

/** Waits (bounded) for a condition the server shows only through the RPC it calls. */
async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 10; !condition() && Date.now() < deadline; delay = Math.min(delay * 2, 200))
    await new Promise((resolve) => setTimeout(resolve, delay));
}

/**
 * A payment sent as a client sends it: again, a few times, while it is answered 503 with no settlement recorded for
 * it. A chain read that times out before the settlement (a loaded machine) frees the authorization and sends
 * nothing, so no sweep ever finishes that payment; a 503 once it is recorded is the one the sweep resolves.
 */
async function payUntilRecorded(header: string): Promise<Response> {
  const { nonce } = paymentPayload(header).authorization;
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(executeUrl(), post({ "payment-signature": header }));
    if (res.status !== 503 || attempt === 3) return res;
    const [row] = await (await db()).select().from(x402Payments).where(eq(x402Payments.nonce, nonce));
    if (row?.settlementTxHash) return res;
    await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
  }
}

/**
 * A settling payment of `from`'s authorization `nonce`, sent as `settlementTxHash`, whose request stopped waiting an
 * hour ago: the sweep's next look resolves it by that transaction's receipt and by what moved on chain.
 */
const staleSettlement = (from: Address, nonce: Hex, settlementTxHash: Hex, settlerNonce = 0) => ({
  chainId: chain.chainId,
  tokenAddress: chain.token,
  fromAddress: from,
  nonce,
  status: "settling" as const,
  serviceId: "token-count",
  fingerprint: "stale settlement",
  value: price.toString(),
  input: input.input,
  placement: "any",
  settlementTxHash,
  settlerNonce,
  settlingSince: new Date(),
  updatedAt: new Date(Date.now() - 3_600_000),
});

/** A transaction that was mined and reverted (as a settlement does when the authorization can no longer be used). */
const revertedTransaction = async () =>
  chain.transferThatReverts(await chain.newAccount({ tokens: 0n }), chain.treasury, 1n);

describe("an Idempotency-Key is claimed before anything is settled", () => {
  it("a retry with a new authorization while the first still settles waits for it: one job, the money moved once", async () => {
    const payer = await chain.newAccount();
    const required = await offer();
    const first = await officialPayment(payer, required);
    const second = await officialPayment(payer, required);
    const [payerBefore, treasuryBefore] = await Promise.all([
      tokenBalance(payer.address),
      tokenBalance(chain.treasury),
    ]);
    let retry: Promise<Response> | undefined;
    rpc.beforeForwarding("eth_sendRawTransaction", async () => {
      rpc.beforeForwarding("eth_sendRawTransaction");
      // The first settlement is on its way: the retry arrives now, with a new authorization and the same key.
      retry = fetch(executeUrl(), post({ "payment-signature": second, "idempotency-key": "k-claim" }));
      // Until it reaches the chain itself (the defect: it settles too) or, at most, a moment.
      await until(() => rpc.callsNaming(signatureMark(second)) > 0, 2_000);
    });
    const res = await fetch(executeUrl(), post({ "payment-signature": first, "idempotency-key": "k-claim" }));
    const again = await (retry as Promise<Response>);
    expect([res.status, again.status]).toEqual([202, 202]);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect((await again.json()).jobId).toBe((await res.json()).jobId);
    expect(await tokenBalance(payer.address)).toBe(payerBefore - price);
    expect(await tokenBalance(chain.treasury)).toBe(treasuryBefore + price);
  });
});

describe("a settlement no request waits for is resolved by the sweep", () => {
  it("a broadcast whose answer is lost answers 503 with Retry-After, keeps the payment, and the sweep creates the job", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(payer, await offer());
    const before = await tokenBalance(payer.address);
    rpc.beforeForwarding("eth_sendRawTransaction", async () => {
      rpc.beforeForwarding("eth_sendRawTransaction");
      return { failAfterForwarding: true };
    });
    const res = await fetch(executeUrl(), post({ "payment-signature": header }));
    expect(res.status).toBe(503);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    // The transaction went out: the money moved, so the call is owed its job.
    expect(await tokenBalance(payer.address)).toBe(before - price);
    const view = await eventually(
      () => payerView(payer),
      (v) => v.jobIds.length === 1,
      30_000,
    );
    expect(view.topUps).toEqual([expect.objectContaining({ status: "credited", credits: 1 })]);
    expect(view.ledger).toEqual([
      ["charge", -1],
      ["topup", 1],
    ]);
  });

  it("a settlement included after its request stopped waiting is finished by the sweep: credited and charged once", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(payer, await offer());
    let hash: Hex | undefined;
    rpc.beforeForwarding("eth_sendRawTransaction", async (params) => {
      rpc.beforeForwarding("eth_sendRawTransaction");
      hash = keccak256(params[0] as Hex);
      // A node that does not show it yet: the request times out waiting for its receipt.
      rpc.hideTransaction(hash, true);
    });
    const res = await fetch(executeUrl(), post({ "payment-signature": header }));
    expect(res.status).toBe(503);
    rpc.hideTransaction(hash as Hex, false);
    const view = await eventually(
      () => payerView(payer),
      (v) => v.jobIds.length === 1,
      30_000,
    );
    expect(view.topUps).toEqual([expect.objectContaining({ txHash: hash, status: "credited", credits: 1 })]);
    expect(view.ledger).toEqual([
      ["charge", -1],
      ["topup", 1],
    ]);
  });
});

describe("the settler's nonce sequence heals", () => {
  it("a dropped settlement is replaced at its nonce with a higher fee; the settlement behind it goes through; metrics say so", async () => {
    const [a, b] = await Promise.all([chain.newAccount(), chain.newAccount()]);
    const required = await offer();
    const [paysA, paysB] = await Promise.all([officialPayment(a, required), officialPayment(b, required)]);
    const dropped = new Set<string>();
    // The node never gets A's settlement (however often it is sent): a dropped transaction, a nonce gap.
    rpc.beforeForwarding("eth_sendRawTransaction", async (params) => {
      const hash = keccak256(params[0] as Hex);
      if (dropped.size === 0) dropped.add(hash);
      return dropped.has(hash) ? { answer: hash } : undefined;
    });
    const treasury = await tokenBalance(chain.treasury);
    try {
      const resA = await payUntilRecorded(paysA);
      expect(resA.status).toBe(503);
      // B's settlement takes the next nonce and waits behind the gap.
      const resB = await payUntilRecorded(paysB);
      expect([202, 503]).toContain(resB.status);
      // Within the test's own timeout (120 s), so a wait that gives up says what it saw.
      const views = await eventually(
        () => Promise.all([payerView(a), payerView(b)]),
        ([va, vb]) => va.jobIds.length === 1 && vb.jobIds.length === 1,
        60_000,
      );
      for (const view of views)
        expect(view.ledger).toEqual([
          ["charge", -1],
          ["topup", 1],
        ]);
    } finally {
      rpc.beforeForwarding("eth_sendRawTransaction");
    }
    expect(await tokenBalance(chain.treasury)).toBe(treasury + 2n * price);
    const scrape = await (
      await fetch(`${server.baseUrl}/api/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })
    ).text();
    expect(scrape).toMatch(/^execution_x402_settlements_replaced_total\{kind="settlement"\} [1-9]/m);
  }, 120_000);
});

describe("the settler's nonce sequence heals when a settlement can no longer be made", () => {
  it("a dropped settlement whose authorization expired is filled by a 0-value transfer (a dropped filler is filled again): nothing moved, the next one goes through", async () => {
    const [a, b] = await Promise.all([chain.newAccount(), chain.newAccount()]);
    const required = await offer();
    // A's authorization expires before the sweep would replace it (one settlement timeout after it was sent).
    const paysA = await forgedPayment(a, a.address, required.accepts[0], undefined, 4n);
    const paysB = await officialPayment(b, required);
    const markA = signatureMark(paysA);
    const dropped = new Set<string>();
    let fillerDropped = false;
    rpc.beforeForwarding("eth_sendRawTransaction", async (params) => {
      const hash = keccak256(params[0] as Hex);
      const data = parseTransaction(params[0] as Hex).data;
      // A's settlement never reaches the node, however often it is sent again before it expires.
      if (data?.includes(markA)) dropped.add(hash);
      // The first filler (no calldata) is dropped too: the next sweep must replace it, not stop at it.
      if (!fillerDropped && !data) {
        fillerDropped = true;
        dropped.add(hash);
      }
      return dropped.has(hash) ? { answer: hash } : undefined;
    });
    // The chain's clock moves on, a block a second: it, not the server's clock, says when A's authorization expired.
    const ticking = setInterval(() => void chain.mine().catch(() => undefined), 1_000);
    const [aBefore, treasury] = await Promise.all([tokenBalance(a.address), tokenBalance(chain.treasury)]);
    try {
      expect((await fetch(executeUrl(), post({ "payment-signature": paysA }))).status).toBe(503);
      expect([202, 503]).toContain((await payUntilRecorded(paysB)).status);
      const view = await eventually(
        () => payerView(b),
        (v) => v.jobIds.length === 1,
        60_000,
      );
      expect(view.ledger).toEqual([
        ["charge", -1],
        ["topup", 1],
      ]);
    } finally {
      clearInterval(ticking);
      rpc.beforeForwarding("eth_sendRawTransaction");
    }
    // A's settlement never ran: its tokens stayed, it has no job, and the treasury got B's payment only.
    expect(await tokenBalance(a.address)).toBe(aBefore);
    expect(await tokenBalance(chain.treasury)).toBe(treasury + price);
    expect((await payerView(a)).jobIds).toEqual([]);
    const scrape = await (
      await fetch(`${server.baseUrl}/api/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })
    ).text();
    expect(fillerDropped).toBe(true);
    expect(scrape).toMatch(/^execution_x402_settlements_replaced_total\{kind="filler"\} [2-9]/m);
  }, 120_000);
});

describe("rate limits count what is proven", () => {
  it("forged payments naming a payer spend their clients' allowance, never the payer's", async () => {
    const victim = await chain.newAccount();
    const attacker = privateKeyToAccount(generatePrivateKey());
    const requirement = (await offer()).accepts[0];
    for (let i = 0; i <= ratePerMinute; i++) {
      // A wrong EOA signature (refused here), and one only the chain could prove (a contract wallet's length).
      const wrong = await fetch(
        executeUrl(),
        post({ "payment-signature": await forgedPayment(attacker, victim.address, requirement) }),
      );
      expect(wrong.status).toBe(402);
      const unproven = await fetch(
        executeUrl(),
        post({
          "payment-signature": await forgedPayment(attacker, victim.address, requirement, `0x${"ab".repeat(66)}`),
        }),
      );
      expect(unproven.status).toBe(402);
    }
    const paid = await fetch(executeUrl(), post({ "payment-signature": await officialPayment(victim, await offer()) }));
    expect(paid.status).toBe(202);
  });
});

describe("rate limits count what only the payer can make", () => {
  it("replays of the payer's public authorization from other clients spend their clients' allowance, never the payer's", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(payer, await offer());
    expect((await fetch(executeUrl(), post({ "payment-signature": header }))).status).toBe(202);
    // Anyone who saw it (it is in the settlement's calldata) sends it again, more times than the payer's allowance.
    for (let i = 0; i <= ratePerMinute; i++) {
      const replayed = await fetch(executeUrl(), post({ "payment-signature": header }));
      expect(replayed.status).toBe(402);
      expect(paymentResponse(replayed).errorReason).toBe("nonce_used");
    }
    const next = await fetch(executeUrl(), post({ "payment-signature": await officialPayment(payer, await offer()) }));
    expect(next.status).toBe(202);
  });
});

describe("a payer over their allowance", () => {
  it("is refused (429) with nothing written, and the same authorization sent again is refused too: it was never presented", async () => {
    // A payer whose authorizations are each refused on-chain (no tokens): each new one spends their allowance.
    const payer = await chain.newAccount({ tokens: 0n });
    for (let i = 0; i < ratePerMinute; i++) {
      const refused = await fetch(
        executeUrl(),
        post({ "payment-signature": await officialPayment(payer, await offer()) }),
      );
      expect(paymentResponse(refused).errorReason).toBe("insufficient_funds");
    }
    const over = await officialPayment(payer, await offer());
    await expectRateLimited(await fetch(executeUrl(), post({ "payment-signature": over })));
    const { nonce } = paymentPayload(over).authorization;
    const rowsOf = () => db().then((d) => d.select().from(x402Payments).where(eq(x402Payments.nonce, nonce)));
    expect(await rowsOf()).toEqual([]);
    // Sent again from another client address: still the payer's new authorization, counted as such.
    await expectRateLimited(await fetch(executeUrl(), post({ "payment-signature": over })));
    expect(await rowsOf()).toEqual([]);
  });
});

async function expectRateLimited(res: Response): Promise<void> {
  expect(res.status).toBe(429);
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe("RATE_LIMITED");
}

describe("a reservation never holds an authorization or a key for good", () => {
  it("an IDEMPOTENCY_CONFLICT found after the reservation frees the authorization: sent again without the key, it pays", async () => {
    const payer = await chain.newAccount();
    const required = await offer();
    const first = await fetch(
      executeUrl(),
      post({ "payment-signature": await officialPayment(payer, required), "idempotency-key": "k-conflict" }),
    );
    expect(first.status).toBe(202);
    // The same key for another input, signed in 64 bytes: only the token's simulation proves it the payer's, so
    // the key's replay (and its conflict) comes after the authorization is reserved.
    const compact = await compactPayment(payer, required.accepts[0]);
    const other = { input: { text: "Another call under the same key." } };
    const conflict = await fetch(
      executeUrl(),
      post({ "payment-signature": compact, "idempotency-key": "k-conflict" }, freshClient(), other),
    );
    expect(conflict.status).toBe(409);
    expect((await conflict.json()).error.code).toBe("IDEMPOTENCY_CONFLICT");
    const before = await tokenBalance(payer.address);
    const paid = await fetch(executeUrl(), post({ "payment-signature": compact }, freshClient(), other));
    expect(paid.status).toBe(202);
    expect(await tokenBalance(payer.address)).toBe(before - price);
  });

  it("the sweep fails a reservation left by a request that died, freeing the payer's Idempotency-Key", async () => {
    const payer = await chain.newAccount();
    const required = await offer();
    const paying = await officialPayment(payer, required);
    // What a request that crashed after its reservation leaves: a reserved row holding the key, long ago.
    const [left] = await (
      await db()
    )
      .insert(x402Payments)
      .values({
        chainId: chain.chainId,
        tokenAddress: chain.token,
        fromAddress: payer.address,
        nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
        status: "reserved",
        serviceId: "token-count",
        fingerprint: "left-by-a-crash",
        idempotencyKey: "k-crash",
        value: price.toString(),
        input: input.input,
        placement: "any",
        updatedAt: new Date(Date.now() - 3_600_000),
      })
      .returning();
    const row = async () => (await (await db()).select().from(x402Payments).where(eq(x402Payments.id, left.id)))[0];
    expect((await eventually(row, (r) => r.status === "failed", 5_000)).status).toBe("failed");
    const res = await fetch(executeUrl(), post({ "payment-signature": paying, "idempotency-key": "k-crash" }));
    expect(res.status).toBe(202);
  });
});

describe("an authorization someone else submits first", () => {
  it("the settler's own settlement reverts, yet the money moved: the payment ends paid and its job runs once", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(payer, await offer());
    const [payerBefore, treasuryBefore] = await Promise.all([
      tokenBalance(payer.address),
      tokenBalance(chain.treasury),
    ]);
    let frontRun: Hex | undefined;
    rpc.beforeForwarding("eth_sendRawTransaction", async () => {
      rpc.beforeForwarding("eth_sendRawTransaction");
      // The authorization is public once sent: a third party submits it before the settler's transaction arrives.
      frontRun = await submitAuthorization(chain, header);
    });
    const res = await fetch(executeUrl(), post({ "payment-signature": header }));
    expect(res.status).toBe(202);
    const { jobId } = await res.json();
    expect(paymentResponse(res)).toMatchObject({
      success: true,
      transaction: frontRun,
    });
    expect(await tokenBalance(payer.address)).toBe(payerBefore - price);
    expect(await tokenBalance(chain.treasury)).toBe(treasuryBefore + price);
    const view = await payerView(payer);
    expect(view.jobIds).toEqual([jobId]);
    expect(view.topUps).toEqual([expect.objectContaining({ txHash: frontRun, status: "credited", credits: 1 })]);
    expect(view.ledger).toEqual([
      ["charge", -1],
      ["topup", 1],
    ]);
  });
});

describe("a node behind a load balancer that does not show the block's logs yet", () => {
  it("the use of an authorization someone else submitted first is looked at again, never refused: 503, then the sweep finishes it", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(payer, await offer());
    let used: Hex | undefined;
    // Reads of a block's logs by its hash answer [] (the node has not seen that block): an answer, not an error.
    rpc.beforeForwarding("eth_getLogs", async (params) =>
      (params[0] as { blockHash?: string }).blockHash ? { answer: [] } : undefined,
    );
    rpc.beforeForwarding("eth_sendRawTransaction", async () => {
      rpc.beforeForwarding("eth_sendRawTransaction");
      used = await submitAuthorization(chain, header);
    });
    try {
      const res = await fetch(executeUrl(), post({ "payment-signature": header }));
      expect(res.status).toBe(503);
      const [row] = await (await db()).select().from(x402Payments).where(eq(x402Payments.fromAddress, payer.address));
      expect(row.status).toBe("settling");
    } finally {
      rpc.beforeForwarding("eth_getLogs");
    }
    const view = await eventually(
      () => payerView(payer),
      (v) => v.jobIds.length === 1,
      30_000,
    );
    expect(view.topUps).toEqual([expect.objectContaining({ txHash: used, status: "credited", credits: 1 })]);
    expect(view.ledger).toEqual([
      ["charge", -1],
      ["topup", 1],
    ]);
  });
});

describe("an authorization used after the block where the settler's own settlement reverted", () => {
  // Ours can revert for another reason than the nonce's use (the payer's balance, a paused token) while the
  // authorization stays valid: anyone may submit it afterwards, and then the money moved after that block.
  it("is found above that block, not only below it", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(payer, await offer());
    const { authorization: a } = paymentPayload(header);
    const reverted = await chain.publicClient.getBlockNumber({ cacheTime: 0 });
    const used = await submitAuthorization(chain, header);
    const config = x402Config();
    if (!config) throw new Error("x402 is not configured in this file's server");
    const found = await findAuthorizationUse(config, a.from, a.nonce, 0n, reverted);
    expect(found).toMatchObject({ transactionHash: used });
  });
});

describe("the search for an authorization's use starts from its settlement's time", () => {
  it("not from the row's creation, which a row taken over from a failed one keeps", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(payer, await offer());
    const { authorization: a } = paymentPayload(header);
    // The blocks up to `aged` read as mined an hour ago; ours reverted in `reverted`; the use came after it.
    const aged = await chain.publicClient.getBlockNumber();
    await chain.mine(3);
    const reverted = await chain.publicClient.getBlockNumber();
    const used = await submitAuthorization(chain, header);
    const probe = await startRpcProxy(chain.rpcUrl);
    let lowest: bigint | undefined;
    probe.beforeForwarding("eth_getBlockByNumber", async (params) => {
      const answer = await fetch(chain.rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getBlockByNumber", params }),
      });
      const { result } = (await answer.json()) as { result: { number: Hex; timestamp: Hex } };
      if (BigInt(result.number) <= aged) result.timestamp = toHex(Math.floor(Date.now() / 1000) - 3_600);
      return { answer: result };
    });
    probe.beforeForwarding("eth_getLogs", async (params) => {
      const { fromBlock } = params[0] as { fromBlock?: Hex };
      if (fromBlock !== undefined && (lowest === undefined || BigInt(fromBlock) < lowest)) lowest = BigInt(fromBlock);
    });
    // A row taken over today from one that failed two days ago: its settlement was recorded now.
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
        fingerprint: "taken over",
        value: price.toString(),
        input: input.input,
        placement: "any",
        createdAt: new Date(Date.now() - 2 * 86_400_000),
        settlingSince: new Date(),
      })
      .returning();
    const config = x402Config();
    if (!config) throw new Error("x402 is not configured in this file's server");
    try {
      // One block a range, so the search's lowest range is the lowest block it read: the first block at or after
      // the settlement's time less 10 minutes, by the blocks' timestamps, kept on the row.
      const found = await transferElsewhere({ ...config, rpcUrl: probe.url, scanBlocks: 1n }, row, { upTo: reverted });
      expect(found).toMatchObject({ transactionHash: used });
      expect(lowest).toBe(aged + 1n);
      const [kept] = await (await db()).select().from(x402Payments).where(eq(x402Payments.id, row.id));
      expect(kept.useSearchFloor).toBe(aged + 1n);
    } finally {
      await probe.close();
      await (await db()).delete(x402Payments).where(eq(x402Payments.id, row.id));
    }
  });

  it("never from above the authorization's validAfter: a use the chain's clock puts more than 10 minutes before our settlement time is found", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(payer, await offer());
    const { authorization: a, signature } = paymentPayload(header);
    const reverted = await chain.publicClient.getBlockNumber();
    const used = await submitAuthorization(chain, header);
    await chain.mine(3);
    // Our settlement as it was sent (its calldata carries the authorization), recorded when our clock read an hour
    // later than the chain's.
    const { v, r, s } = parseSignature(signature);
    const settlement = await privateKeyToAccount(generatePrivateKey()).signTransaction({
      to: chain.token,
      data: encodeFunctionData({
        abi: eip3009Abi,
        functionName: "transferWithAuthorization",
        args: [a.from, a.to, BigInt(a.value), BigInt(a.validAfter), BigInt(a.validBefore), a.nonce, Number(v), r, s],
      }),
      gas: 120_000n,
      gasPrice: 1n,
      nonce: 0,
      chainId: chain.chainId,
    });
    const [row] = await (
      await db()
    )
      .insert(x402Payments)
      .values({
        ...staleSettlement(payer.address, a.nonce, keccak256(settlement)),
        status: "failed",
        settlementRawTx: settlement,
        settlingSince: new Date(Date.now() + 3_600_000),
      })
      .returning();
    const config = x402Config();
    if (!config) throw new Error("x402 is not configured in this file's server");
    try {
      expect(await transferElsewhere(config, row, { upTo: reverted })).toMatchObject({ transactionHash: used });
    } finally {
      await (await db()).delete(x402Payments).where(eq(x402Payments.id, row.id));
    }
  });

  it("covers every block from the settlement's time, however far behind the head: a lost payment's use is found, once looked up by time", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(payer, await offer());
    const { authorization: a } = paymentPayload(header);
    // The blocks up to `aged` read as mined an hour ago (before the settlement); its use is 60 blocks below the
    // head, more than 50 ranges of one block each.
    const aged = await chain.publicClient.getBlockNumber();
    await chain.mine(2);
    const used = await submitAuthorization(chain, header);
    await chain.mine(60);
    const head = await chain.publicClient.getBlockNumber();
    const probe = await startRpcProxy(chain.rpcUrl);
    let blockReads = 0;
    probe.beforeForwarding("eth_getBlockByNumber", async (params) => {
      blockReads++;
      const answer = await fetch(chain.rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getBlockByNumber", params }),
      });
      const { result } = (await answer.json()) as { result: { number: Hex; timestamp: Hex } };
      if (BigInt(result.number) <= aged) result.timestamp = toHex(Math.floor(Date.now() / 1000) - 3_600);
      return { answer: result };
    });
    // Lost: none of the settler's transactions for it was found, and its nonce was taken (no block to search from).
    const [row] = await (
      await db()
    )
      .insert(x402Payments)
      .values({
        ...staleSettlement(payer.address, a.nonce, await revertedTransaction()),
        status: "failed",
        settlingSince: new Date(),
      })
      .returning();
    const config = x402Config();
    if (!config) throw new Error("x402 is not configured in this file's server");
    try {
      const search = { ...config, rpcUrl: probe.url, scanBlocks: 1n };
      expect(await transferElsewhere(search, row, { head })).toMatchObject({ transactionHash: used });
      const [kept] = await (await db()).select().from(x402Payments).where(eq(x402Payments.id, row.id));
      expect(kept.useSearchFloor).toBe(aged + 1n);
      // The floor is kept: a later look reads no block's time again.
      blockReads = 0;
      expect(await transferElsewhere(search, kept, { head })).toMatchObject({ transactionHash: used });
      expect(blockReads).toBe(0);
    } finally {
      await probe.close();
      await (await db()).delete(x402Payments).where(eq(x402Payments.id, row.id));
    }
  });
});

describe("one settlement the RPC fails on does not hold the sweep's batch back", () => {
  it("it is skipped (looked at, logged) and the batch goes on: the settlement after it is finished", async () => {
    const [a, b] = await Promise.all([chain.newAccount(), chain.newAccount()]);
    const required = await offer();
    const [paysA, paysB] = await Promise.all([officialPayment(a, required), officialPayment(b, required)]);
    // Both authorizations used by someone else: A's settlement reverted (its use is searched for), B's is the
    // transaction that used it (finished by its receipt); A comes first in the batch (its lower settler nonce).
    await submitAuthorization(chain, paysA);
    const usedB = await submitAuthorization(chain, paysB);
    const nonceA = paymentPayload(paysA).authorization.nonce;
    // Every call naming A's nonce (the search for its use) answers a JSON-RPC error.
    rpc.failCallsNaming(nonceA, true);
    const [rowA, rowB] = await (
      await db()
    )
      .insert(x402Payments)
      .values([
        staleSettlement(a.address, nonceA, await revertedTransaction(), 0),
        staleSettlement(b.address, paymentPayload(paysB).authorization.nonce, usedB, 1_000_000),
      ])
      .returning();
    const read = async (id: string) =>
      (await (await db()).select().from(x402Payments).where(eq(x402Payments.id, id)))[0];
    try {
      const finished = await eventually(
        () => read(rowB.id),
        (row) => row.status === "settled",
        20_000,
      );
      expect(finished.jobId).not.toBeNull();
      const skipped = await read(rowA.id);
      expect(skipped.status).toBe("settling");
      expect(skipped.updatedAt.getTime()).toBeGreaterThan(Date.now() - 60_000);
    } finally {
      rpc.failCallsNaming(nonceA, false);
      await (await db()).delete(x402Payments).where(eq(x402Payments.id, rowA.id));
    }
  });
});

describe("a rival transaction that batches several of the payer's authorizations", () => {
  // A facilitator (or the payer) may submit several authorizations in one transaction: each use's AuthorizationUsed
  // and Transfer logs stand side by side, and ours is judged by its own pair only.
  it("ours, second in the batch after one that paid the payer, is paid by its own transfer: 202, one job", async () => {
    const payer = await chain.newAccount();
    const required = await offer();
    const header = await officialPayment(payer, required);
    const toSelf = await signedAuthorization(chain, payer, required.accepts[0], { to: payer.address });
    let batch: Hex | undefined;
    rpc.beforeForwarding("eth_sendRawTransaction", async () => {
      rpc.beforeForwarding("eth_sendRawTransaction");
      batch = await submitAuthorization(chain, toSelf, header);
    });
    const res = await fetch(executeUrl(), post({ "payment-signature": header }));
    expect(res.status).toBe(202);
    expect(paymentResponse(res)).toMatchObject({ success: true, transaction: batch });
    const view = await payerView(payer);
    expect(view.jobIds).toEqual([(await res.json()).jobId]);
    expect(view.topUps).toEqual([expect.objectContaining({ txHash: batch, status: "credited", credits: 1 })]);
  });

  /** The payer's other authorization (its own nonce) paying the treasury `value`, then a rival under our nonce paying the payer, in one transaction. */
  async function rivalBatchedAfter(value: bigint) {
    const payer = await chain.newAccount();
    const required = await offer();
    const header = await officialPayment(payer, required);
    const { authorization: a } = paymentPayload(header);
    // The Transfer just before the rival's AuthorizationUsed log is the other one's.
    const other = await signedAuthorization(chain, payer, required.accepts[0], { value });
    const rival = await signedAuthorization(chain, payer, required.accepts[0], {
      to: payer.address,
      nonce: a.nonce,
      validBefore: BigInt(a.validBefore),
    });
    rpc.beforeForwarding("eth_sendRawTransaction", async () => {
      rpc.beforeForwarding("eth_sendRawTransaction");
      await submitAuthorization(chain, other, rival);
    });
    const res = await fetch(executeUrl(), post({ "payment-signature": header }));
    const [row] = await (await db()).select().from(x402Payments).where(eq(x402Payments.fromAddress, payer.address));
    return { payer, res, row };
  }

  it.each([
    ["the price", price],
    ["more than the price", price + 1n],
  ])(
    "the neighbouring use's transfer to the treasury (%s) never pays for a rival under our nonce: settlement_failed, no job",
    async (_, neighbour) => {
      // Both uses of the batch hold their Transfers on the token's side, so the side is right and ours is refused
      // (not left settling: a payer must not be able to wedge a payment and show the settler stuck at will).
      const { payer, res, row } = await rivalBatchedAfter(neighbour);
      expect(res.status).toBe(402);
      expect(paymentResponse(res)).toMatchObject({ success: false, errorReason: "settlement_failed" });
      expect(row).toMatchObject({ status: "failed", failureReason: "settlement_failed", jobId: null });
      expect((await payerView(payer)).jobIds).toEqual([]);
    },
  );
});

describe("a payer who front-runs with another authorization under the same nonce", () => {
  // EIP-3009 lets a payer sign several authorizations with one nonce: the first mined uses it. The payer's rival
  // (to themselves, or 1 wei to the treasury) is mined before the settler's, which reverts: its AuthorizationUsed
  // log is there, but nothing (or not the payment) moved to the treasury, so nothing is credited and no job runs.
  it.each([
    ["to themselves", (payer: Address) => ({ to: payer, value: price })],
    ["1 wei to the treasury", () => ({ to: chain.treasury, value: 1n })],
  ])("%s: the call is refused (settlement_failed), nothing credited, no job", async (_, rivalTerms) => {
    const payer = await chain.newAccount();
    const required = await offer();
    const header = await officialPayment(payer, required);
    const { authorization: a } = paymentPayload(header);
    const terms = rivalTerms(payer.address);
    const rival = await signedAuthorization(chain, payer, required.accepts[0], {
      ...terms,
      validBefore: BigInt(a.validBefore),
      nonce: a.nonce,
    });
    const treasuryBefore = await tokenBalance(chain.treasury);
    rpc.beforeForwarding("eth_sendRawTransaction", async () => {
      rpc.beforeForwarding("eth_sendRawTransaction");
      await submitAuthorization(chain, rival);
    });
    const res = await fetch(executeUrl(), post({ "payment-signature": header }));
    expect(res.status).toBe(402);
    expect(paymentResponse(res)).toMatchObject({ success: false, errorReason: "settlement_failed" });
    expect(await tokenBalance(chain.treasury)).toBe(treasuryBefore + (terms.to === chain.treasury ? 1n : 0n));
    const view = await payerView(payer);
    expect(view.jobIds).toEqual([]);
    expect(view.ledger.filter(([type, amount]) => type === "topup" && Number(amount) > 0)).toEqual([]);
    const [row] = await (await db()).select().from(x402Payments).where(eq(x402Payments.fromAddress, payer.address));
    expect(row).toMatchObject({ status: "failed", failureReason: "settlement_failed", jobId: null });
  });
});

describe("a payer who cancels the authorization after the simulation", () => {
  it("its nonce is used with no AuthorizationUsed log: the call is refused (settlement_failed) at once, no job", async () => {
    const payer = await chain.newAccount();
    const required = await offer();
    const header = await officialPayment(payer, required);
    rpc.beforeForwarding("eth_sendRawTransaction", async () => {
      rpc.beforeForwarding("eth_sendRawTransaction");
      await cancelAuthorization(chain, payer, header, required.accepts[0]);
    });
    const res = await fetch(executeUrl(), post({ "payment-signature": header }));
    expect(res.status).toBe(402);
    expect(paymentResponse(res)).toMatchObject({ success: false, errorReason: "settlement_failed" });
    const [row] = await (await db()).select().from(x402Payments).where(eq(x402Payments.fromAddress, payer.address));
    expect(row).toMatchObject({ status: "failed", failureReason: "settlement_failed", jobId: null });
    expect((await payerView(payer)).jobIds).toEqual([]);
  });
});

describe("a payer who cancels the authorization, found by the sweep", () => {
  it("a settlement that reverted, its authorization canceled: failed (settlement_failed), no job", async () => {
    const payer = await chain.newAccount();
    const required = await offer();
    const header = await officialPayment(payer, required);
    await cancelAuthorization(chain, payer, header, required.accepts[0]);
    const [row] = await (
      await db()
    )
      .insert(x402Payments)
      .values(staleSettlement(payer.address, paymentPayload(header).authorization.nonce, await revertedTransaction()))
      .returning();
    try {
      const resolved = await eventually(
        async () => (await (await db()).select().from(x402Payments).where(eq(x402Payments.id, row.id)))[0],
        (r) => r.status !== "settling",
        20_000,
      );
      expect(resolved).toMatchObject({ status: "failed", failureReason: "settlement_failed", jobId: null });
    } finally {
      await (await db()).delete(x402Payments).where(eq(x402Payments.id, row.id));
    }
  });
});

describe("the §10 top-up watcher finds the transfer of an authorization someone else submitted first", () => {
  /** The payer's top-up for `txHash`, once the watcher has recorded it as `status`. */
  const topUpOf = (txHash: Hex, status: "confirming" | "credited") =>
    eventually(
      async () => (await (await db()).select().from(topUps).where(eq(topUps.txHash, txHash.toLowerCase())))[0],
      (row) => row?.status === status,
      10_000,
    );

  it("recorded but not yet credited (confirming): the payment takes it over and credits it once; the job runs", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(payer, await offer());
    let used: Hex | undefined;
    let recorded: { id: string } | undefined;
    rpc.beforeForwarding("eth_sendRawTransaction", async () => {
      rpc.beforeForwarding("eth_sendRawTransaction");
      used = await submitAuthorization(chain, header);
      // The payer has no account yet: the watcher records the transfer as confirming and cannot credit it.
      recorded = await topUpOf(used, "confirming");
    });
    const res = await fetch(executeUrl(), post({ "payment-signature": header }));
    expect(res.status).toBe(202);
    expect(paymentResponse(res)).toMatchObject({ success: true, transaction: used });
    const [topUp] = await (
      await db()
    )
      .select()
      .from(topUps)
      .where(eq(topUps.txHash, (used as Hex).toLowerCase()));
    expect(topUp).toMatchObject({ id: recorded?.id, status: "credited", credits: 1n });
    const view = await payerView(payer);
    expect(view.jobIds).toEqual([(await res.json()).jobId]);
    expect(view.ledger).toEqual([
      ["charge", -1],
      ["topup", 1],
    ]);
  });

  it("already credited, and the credits spent: the job is refused after the payment (409 PAYMENT_CLAIMED, INSUFFICIENT_CREDITS), never credited twice", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(payer, await offer());
    // The payer has an account (signed in), so the watcher credits the transfer once it is deep enough.
    await signIn(server.baseUrl, payer);
    const [account] = await (await db()).select().from(accounts).where(eq(accounts.walletAddress, payer.address));
    rpc.beforeForwarding("eth_sendRawTransaction", async () => {
      rpc.beforeForwarding("eth_sendRawTransaction");
      const used = await submitAuthorization(chain, header);
      await chain.mine(2);
      await topUpOf(used, "credited");
      // The payer spends every credit before the settler's own settlement reverts and the payment is finished.
      await (await db()).update(accounts).set({ creditBalance: 0 }).where(eq(accounts.id, account.id));
    });
    const res = await fetch(executeUrl(), post({ "payment-signature": header }));
    expect(res.status).toBe(409);
    expect((await res.json()).error).toMatchObject({
      code: "PAYMENT_CLAIMED",
      details: { refusal: expect.objectContaining({ code: "INSUFFICIENT_CREDITS" }) },
    });
    const view = await payerView(payer);
    expect(view.jobIds).toEqual([]);
    expect(view.ledger.filter(([type]) => type === "topup")).toEqual([["topup", 1]]);
    const [row] = await (await db()).select().from(x402Payments).where(eq(x402Payments.fromAddress, payer.address));
    expect(row).toMatchObject({ status: "settled", jobId: null });
  });
});

describe("a settled payment whose job cannot be created", () => {
  it("keeps the credit and is finished with no job (the price rose before the sweep finished it): the sweep stops", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(payer, await offer("text-summarize"));
    const mark = signatureMark(header);
    let settlement: Hex | undefined;
    // The node drops every settlement of this payment (the first one is kept, to be mined later).
    rpc.beforeForwarding("eth_sendRawTransaction", async (params) => {
      const raw = params[0] as Hex;
      if (!raw.includes(mark)) return undefined;
      settlement ??= raw;
      return { answer: keccak256(raw) };
    });
    const setPrice = async (cost: number) =>
      (await db()).update(services).set({ creditCost: cost }).where(eq(services.id, "text-summarize"));
    try {
      const res = await fetch(executeUrl("text-summarize"), post({ "payment-signature": header }));
      expect(res.status).toBe(503);
      // Paid for 2 credits; the call costs 3 by the time its settlement is mined (past the server's 5 s cache).
      await setPrice(3);
      await new Promise((resolve) => setTimeout(resolve, 5_500));
      await chain.publicClient.sendRawTransaction({ serializedTransaction: settlement as Hex });
    } finally {
      rpc.beforeForwarding("eth_sendRawTransaction");
    }
    const hash = keccak256(settlement as Hex);
    try {
      const payment = await eventually(
        async () =>
          (await (await db()).select().from(x402Payments).where(eq(x402Payments.fromAddress, payer.address)))[0],
        (row) => row.status !== "settling",
        20_000,
      );
      expect(payment).toMatchObject({ status: "settled", jobId: null });
    } finally {
      await setPrice(2);
    }
    const view = await payerView(payer);
    expect(view.jobIds).toEqual([]);
    expect(view.topUps).toEqual([expect.objectContaining({ txHash: hash, status: "credited", credits: 2 })]);
    expect(view.ledger).toEqual([["topup", 2]]);
  });
});

describe("a paid call whose job is refused after its payment is credited", () => {
  it("answers 409 PAYMENT_CLAIMED with the refusal in details (never the refusal's own code); the credit stays", async () => {
    const payer = await chain.newAccount();
    const header = await officialPayment(payer, await offer());
    // The payer's account exists (signed in), and its Idempotency-Key is taken by another call between the
    // payment's check and its finish: the job is refused once the money moved.
    await signIn(server.baseUrl, payer);
    const [account] = await (await db()).select().from(accounts).where(eq(accounts.walletAddress, payer.address));
    rpc.beforeForwarding("eth_sendRawTransaction", async () => {
      rpc.beforeForwarding("eth_sendRawTransaction");
      await (await db()).insert(idempotencyKeys).values({
        accountId: account.id,
        key: "k-taken",
        fingerprint: "another call",
        jobId: crypto.randomUUID(),
        responseStatus: 202,
        responseBody: {},
      });
    });
    const res = await fetch(executeUrl(), post({ "payment-signature": header, "idempotency-key": "k-taken" }));
    expect(res.status).toBe(409);
    expect(res.headers.get("payment-required")).toBeNull();
    expect((await res.json()).error).toMatchObject({
      code: "PAYMENT_CLAIMED",
      details: { transaction: expect.any(String), refusal: expect.objectContaining({ code: "IDEMPOTENCY_CONFLICT" }) },
    });
    const view = await payerView(payer);
    expect(view.jobIds).toEqual([]);
    expect(view.ledger).toEqual([["topup", 1]]);
  });
});

describe("the sweep's batch is fair", () => {
  it("settlements it leaves as they were (stuck after their replacements) do not keep a newer one out of its batch of 50, however long a batch takes", async () => {
    const minedNonce = await chain.publicClient.getTransactionCount({ address: settler });
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
    const row = async (settlerNonce: number) => ({
      chainId: chain.chainId,
      tokenAddress: chain.token,
      fromAddress: privateKeyToAccount(generatePrivateKey()).address,
      nonce: randomHash(),
      status: "settling" as const,
      serviceId: "token-count",
      fingerprint: "fairness",
      value: price.toString(),
      input: input.input,
      placement: "any",
      settlementTxHash: randomHash(),
      settlementRawTx: await unsendable(),
      // Replaced 5 times already: only rebroadcast and reported from now on.
      replacedTxHashes: Array.from({ length: 5 }, randomHash),
      settlerNonce,
      updatedAt: new Date(Date.now() - 3_600_000),
    });
    // Two batches' worth stuck at the lowest nonce not mined, and one behind them, whose rebroadcast must come all
    // the same.
    const stuck = await Promise.all(Array.from({ length: 100 }, () => row(minedNonce)));
    const behind = await row(minedNonce + 1);
    const ids = (
      await (
        await db()
      )
        .insert(x402Payments)
        .values([...stuck, behind])
        .returning({ id: x402Payments.id })
    ).map((r) => r.id);
    const broadcasts = (raw: string) => rpc.callsNaming(raw);
    // A slow RPC (as on a loaded machine): 50 broadcasts take longer than the settlement timeout, so the rows a
    // batch looked at are stale again by the next one.
    rpc.beforeForwarding("eth_sendRawTransaction", () => new Promise((resolve) => setTimeout(resolve, 100)));
    try {
      // The sweep's first two batches: the stuck ones (the lowest nonce), each looked at and rebroadcast once.
      await until(() => stuck.every((s) => broadcasts(s.settlementRawTx) > 0), 90_000);
      expect(stuck.filter((s) => broadcasts(s.settlementRawTx) === 0)).toEqual([]);
      const firstLook = stuck.map((s) => broadcasts(s.settlementRawTx));
      // However long a batch takes (a loaded machine, a slow RPC), the one behind them is looked at before any of
      // them is looked at a second time.
      const lookedAtAgain = () => stuck.every((s, i) => broadcasts(s.settlementRawTx) > firstLook[i]);
      await until(() => broadcasts(behind.settlementRawTx) > 0 || lookedAtAgain(), 90_000);
      expect(broadcasts(behind.settlementRawTx)).toBeGreaterThan(0);
    } finally {
      rpc.beforeForwarding("eth_sendRawTransaction");
      await (await db()).delete(x402Payments).where(inArray(x402Payments.id, ids));
    }
  }, 200_000);
});
