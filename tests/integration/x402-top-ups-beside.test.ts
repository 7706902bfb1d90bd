// The §10 top-ups beside pay per call (CONTRACT §10 and §15), on ganache with the solc-compiled EIP-3009 token: the
// watcher's look at the senders' authorizations cannot be stopped by anyone.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { encodeFunctionData } from "viem";
import { testTokenAbi, type LocalChain } from "../support/chain";
import { signIn } from "../support/developer";
import { eventually } from "../support/jobs";
import type { RpcProxy } from "../support/rpc-proxy";
import type { TestServer } from "../support/test-server";
import { price, startX402, submitAuthorization, type X402World } from "../support/x402";

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
