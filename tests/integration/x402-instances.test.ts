// Pay per call across server instances (CONTRACT §15): two instances on one PostgreSQL share one settler, and
// their concurrent settlements take its nonces in turn (none is reused, none is skipped), while one
// authorization sent to both at once still settles once and runs one job.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wrapFetchWithPaymentFromConfig, x402Client } from "@x402/fetch";
import { ExactEvmScheme } from "@x402/evm";
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from "@x402/core/http";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import type { Address, Hex } from "viem";
import { startLocalChain, testTokenAbi, type LocalChain } from "../support/chain";
import { createScratchDatabase, usePostgres } from "../support/postgres";
import { startServerProcess, type Child } from "../support/processes";

const price = 10_000n;
const body = JSON.stringify({ input: { text: "two instances, one settler" } });
const post = (headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body,
});

let chain: LocalChain;
let settler: Address;
let urls: string[];
const children: Child[] = [];
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  if (!usePostgres()) return;
  chain = await startLocalChain({ token: "eip3009" });
  const settlerKey = generatePrivateKey();
  settler = privateKeyToAccount(settlerKey).address;
  await chain.fund(settler, { eth: 10n ** 18n });
  const database = await createScratchDatabase();
  cleanups.push(database.drop);
  const env = {
    DATABASE_URL: database.url,
    EMBEDDED_NODES: "0",
    PAYMENTS_RPC_URL: chain.rpcUrl,
    PAYMENTS_CHAIN_ID: String(chain.chainId),
    PAYMENTS_TOKEN_ADDRESS: chain.token,
    PAYMENTS_TREASURY_ADDRESS: chain.treasury,
    CREDITS_PER_TOKEN: "100",
    PAYMENTS_SETTLER_KEY: settlerKey,
    X402_RATE_PER_MINUTE: "0",
  };
  const started = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  children.push(...started);
  urls = started.map((s) => s.ready.baseUrl as string);
}, 120_000);

afterAll(async () => {
  await Promise.all(children.map((c) => c.kill()));
  for (const c of cleanups) await c();
  await chain?.stop();
});

const executeUrl = (baseUrl: string) => `${baseUrl}/api/marketplace/services/token-count/execute`;
const network = () => `eip155:${chain.chainId}` as const;
const tokenBalance = (address: Address) =>
  chain.publicClient.readContract({
    address: chain.token,
    abi: testTokenAbi,
    functionName: "balanceOf",
    args: [address],
  });
const transactionOf = (res: Response) =>
  (decodePaymentResponseHeader(res.headers.get("payment-response") ?? "") as { transaction: Hex }).transaction;

function payingFetch(account: PrivateKeyAccount) {
  return wrapFetchWithPaymentFromConfig(fetch, {
    schemes: [{ network: network(), client: new ExactEvmScheme(account) }],
    spendControls: { allowedAssets: [{ network: network(), asset: chain.token }] },
  });
}

/**
 * Payments at once, half on each instance: enough for both instances to contend for the settler's nonces
 * several times over. It was 16: the chain is one ganache process, and 16 payments ask it at the same moment
 * for their checks, simulations and gas estimates; in full CI runs (2 cores, load 8-17) one of the 16 got a
 * 503 because a chain call waited past the server's 5 s RPC timeout: the contract's answer to a chain that
 * does not answer in time, about the machine, not the settler's turns that this test is for.
 */
const concurrentPayments = 8;

/** Each answer's status, with the body of any that is not 202 (a 503 says which call did not answer). */
const statusesOf = (answers: Response[]) =>
  Promise.all(answers.map(async (r) => (r.status === 202 ? 202 : `${r.status} ${await r.text()}`)));

describe.skipIf(!usePostgres())("two instances on one PostgreSQL sharing the settler", () => {
  it(`settles ${concurrentPayments} concurrent payments spread over both with consecutive settler nonces, each once`, async () => {
    const payers = await Promise.all(Array.from({ length: concurrentPayments }, () => chain.newAccount()));
    // Each instance reads the token's terms from the chain once (then keeps them): read before the burst, so
    // the burst is the payments' own calls, not also two cold instances' reads.
    for (const url of urls) expect((await fetch(executeUrl(url), post())).status).toBe(402);
    const treasury = await tokenBalance(chain.treasury);
    const first = await chain.publicClient.getTransactionCount({ address: settler });
    const answers = await Promise.all(payers.map((payer, i) => payingFetch(payer)(executeUrl(urls[i % 2]), post())));
    expect(await statusesOf(answers)).toEqual(Array(concurrentPayments).fill(202));
    const nonces = await Promise.all(
      answers.map(async (r) => (await chain.publicClient.getTransaction({ hash: transactionOf(r) })).nonce),
    );
    expect([...nonces].sort((a, b) => a - b)).toEqual(Array.from({ length: concurrentPayments }, (_, i) => first + i));
    expect(await tokenBalance(chain.treasury)).toBe(treasury + BigInt(concurrentPayments) * price);
  });

  it("one authorization sent to both instances at once (one Idempotency-Key) settles once and runs one job", async () => {
    const payer = await chain.newAccount();
    const offer = await fetch(executeUrl(urls[0]), post());
    const required = decodePaymentRequiredHeader(offer.headers.get("payment-required") ?? "");
    const client = new x402Client().register(network(), new ExactEvmScheme(payer));
    client.setSpendControls({ allowedAssets: [{ network: network(), asset: chain.token }] });
    const header = encodePaymentSignatureHeader(await client.createPaymentPayload(required));
    const treasury = await tokenBalance(chain.treasury);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        fetch(executeUrl(urls[i % 2]), post({ "payment-signature": header, "idempotency-key": "both" })),
      ),
    );
    expect(await statusesOf(answers)).toEqual(Array(10).fill(202));
    const jobs = await Promise.all(answers.map(async (r) => (await r.json()).jobId));
    expect(new Set(jobs).size).toBe(1);
    expect(await tokenBalance(chain.treasury)).toBe(treasury + price);
  });
});
