// Pay per call across server instances (CONTRACT §15): two instances on one PostgreSQL share one settler, and
// their settlements take its nonces in turn (none is reused, none is skipped), while one authorization sent to
// both at once still settles once and runs one job.
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

describe.skipIf(!usePostgres())("two instances on one PostgreSQL sharing the settler", () => {
  it("settles 16 concurrent payments spread over both with 16 consecutive settler nonces, each once", async () => {
    const payers = await Promise.all(Array.from({ length: 16 }, () => chain.newAccount()));
    const treasury = await tokenBalance(chain.treasury);
    const first = await chain.publicClient.getTransactionCount({ address: settler });
    const answers = await Promise.all(payers.map((payer, i) => payingFetch(payer)(executeUrl(urls[i % 2]), post())));
    expect(answers.map((r) => r.status)).toEqual(Array(16).fill(202));
    const nonces = await Promise.all(
      answers.map(async (r) => (await chain.publicClient.getTransaction({ hash: transactionOf(r) })).nonce),
    );
    expect([...nonces].sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, i) => first + i));
    expect(await tokenBalance(chain.treasury)).toBe(treasury + 16n * price);
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
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(202));
    const jobs = await Promise.all(answers.map(async (r) => (await r.json()).jobId));
    expect(new Set(jobs).size).toBe(1);
    expect(await tokenBalance(chain.treasury)).toBe(treasury + price);
  });
});
