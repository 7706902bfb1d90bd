// The e2e test wallet (e2e/test-wallet.ts) on a real chain: window.ethereum in Chromium switching networks and
// sending a token transfer to ganache, checked from outside the page. Driven with Playwright's library on a
// blank local page, so it needs neither the app's build nor its server.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser, type Page } from "@playwright/test";
import { encodeFunctionData, keccak256, parseEventLogs, serializeTransaction, type Hex, type Transaction } from "viem";
import { generatePrivateKey } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installTestWallet, type TestWalletOptions } from "../../e2e/test-wallet";
import { startLocalChain, testTokenAbi, type LocalChain } from "./chain";

let chain: LocalChain;
let browser: Browser;
let site: Server;
let siteUrl: string;

beforeAll(async () => {
  [chain, browser] = await Promise.all([
    startLocalChain(),
    // The same Chromium and flags as playwright.config.ts.
    chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--no-first-run",
      ],
    }),
  ]);
  // A real http origin rather than about:blank, so the wallet's localStorage grant works as on the app.
  site = createServer((_, res) =>
    res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>blank</title>"),
  );
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await browser?.close();
  await chain?.stop();
  site?.close();
});

async function openPage(privateKey: Hex = generatePrivateKey(), options: TestWalletOptions = { chain }) {
  const page = await browser.newPage();
  const wallet = await installTestWallet(page, privateKey, options);
  await page.goto(siteUrl);
  return { page, wallet };
}

type Outcome = { result: unknown } | { error: { code: unknown; message: string } };

/** window.ethereum.request in the page, its result or its EIP-1193 error. */
const request = (page: Page, method: string, params: unknown[] = []): Promise<Outcome> =>
  page.evaluate(
    async ({ method, params }) => {
      const { ethereum } = window as unknown as {
        ethereum: { request(args: { method: string; params: unknown[] }): Promise<unknown> };
      };
      try {
        return { result: await ethereum.request({ method, params }) };
      } catch (error) {
        const { code, message } = error as { code?: unknown; message: string };
        return { error: { code, message } };
      }
    },
    { method, params },
  );

/** Records the chainChanged events the page's listeners receive. */
const recordChainChanged = (page: Page) =>
  page.evaluate(() => {
    const seen: unknown[] = [];
    (window as unknown as { chainChangedSeen: unknown[] }).chainChangedSeen = seen;
    (window as unknown as { ethereum: { on(event: string, listener: (id: unknown) => void): void } }).ethereum.on(
      "chainChanged",
      (id) => seen.push(id),
    );
  });
const chainChangedSeen = (page: Page) =>
  page.evaluate(() => (window as unknown as { chainChangedSeen: unknown[] }).chainChangedSeen);

const localChainHex = () => `0x${chain.chainId.toString(16)}`;
const transferData = (amount: bigint) =>
  encodeFunctionData({ abi: testTokenAbi, functionName: "transfer", args: [chain.treasury, amount] });

describe("e2e test wallet", () => {
  it("without a chain it behaves as before: always mainnet, switching is a no-op, no transactions", async () => {
    const { page } = await openPage(generatePrivateKey(), {});
    expect(await request(page, "eth_chainId")).toEqual({ result: "0x1" });
    expect(await request(page, "wallet_switchEthereumChain", [{ chainId: localChainHex() }])).toEqual({ result: null });
    expect(await request(page, "eth_chainId")).toEqual({ result: "0x1" });
    expect(await request(page, "eth_sendTransaction", [{}])).toMatchObject({ error: { code: 4200 } });
    await page.close();
  });

  it("starts on chain 1, switches to the configured chain and back with chainChanged, refuses an unknown one with 4902", async () => {
    const { page, wallet } = await openPage();
    await recordChainChanged(page);
    expect(await request(page, "eth_chainId")).toEqual({ result: "0x1" });
    expect(await request(page, "net_version")).toEqual({ result: "1" });

    expect(await request(page, "wallet_switchEthereumChain", [{ chainId: localChainHex() }])).toEqual({ result: null });
    expect(await request(page, "eth_chainId")).toEqual({ result: "0x7a69" });
    expect(await request(page, "net_version")).toEqual({ result: "31337" });
    expect(wallet.chainId()).toBe(31337);
    // Switching to the chain it is on changes nothing and announces nothing.
    expect(await request(page, "wallet_switchEthereumChain", [{ chainId: "0x7a69" }])).toEqual({ result: null });
    expect(await request(page, "wallet_switchEthereumChain", [{ chainId: "0x5" }])).toMatchObject({
      error: { code: 4902 },
    });
    expect(await request(page, "eth_chainId")).toEqual({ result: "0x7a69" });
    expect(await request(page, "wallet_switchEthereumChain", [{ chainId: "0x1" }])).toEqual({ result: null });
    expect(await chainChangedSeen(page)).toEqual(["0x7a69", "0x1"]);

    // Adding the configured chain switches to it, as MetaMask does once approved; an unknown one is refused.
    expect(
      await request(page, "wallet_addEthereumChain", [
        { chainId: "0x7a69", chainName: "Local", rpcUrls: [chain.rpcUrl] },
      ]),
    ).toEqual({
      result: null,
    });
    expect(await request(page, "wallet_addEthereumChain", [{ chainId: "0x5", rpcUrls: ["http://x"] }])).toMatchObject({
      error: { code: -32602 },
    });
    expect(await chainChangedSeen(page)).toEqual(["0x7a69", "0x1", "0x7a69"]);
    // The choice outlives a reload, as a real wallet's does.
    await page.reload();
    expect(await request(page, "eth_chainId")).toEqual({ result: "0x7a69" });
    await page.close();
  });

  it("sends a token transfer signed in the test process, filling gas, fees and nonce; reads go to the chain's node", async () => {
    const key = generatePrivateKey();
    const payer = await chain.newAccount({ privateKey: key });
    const { page, wallet } = await openPage(key);
    await request(page, "wallet_switchEthereumChain", [{ chainId: localChainHex() }]);

    // `from` in lower case, as some dapps send it.
    const transfer = { from: wallet.address.toLowerCase(), to: chain.token, data: transferData(1_500_000n) };
    const sent = await request(page, "eth_sendTransaction", [transfer]);
    if (!("result" in sent)) throw new Error(`eth_sendTransaction failed: ${sent.error.message}`);
    const hash = sent.result as Hex;
    const receipt = await chain.publicClient.getTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect(receipt.from).toBe(payer.address.toLowerCase());
    expect(
      parseEventLogs({ abi: testTokenAbi, eventName: "Transfer", logs: receipt.logs }).map((log) => log.args),
    ).toEqual([{ from: payer.address, to: chain.treasury, value: 1_500_000n }]);

    // The page sees the same chain through the wallet.
    expect(await request(page, "eth_getTransactionReceipt", [hash])).toMatchObject({
      result: { status: "0x1", transactionHash: hash },
    });
    expect(await request(page, "eth_blockNumber")).toEqual({ result: `0x${(await chain.blockNumber()).toString(16)}` });
    const balanceOf = encodeFunctionData({ abi: testTokenAbi, functionName: "balanceOf", args: [payer.address] });
    const balance = await request(page, "eth_call", [{ to: chain.token, data: balanceOf }, "latest"]);
    expect(balance).toEqual({ result: `0x${(1_000_000_000n - 1_500_000n).toString(16).padStart(64, "0")}` });
    // The node's own error reaches the page: a transfer above the balance cannot be estimated or sent.
    const tooMuch = { from: wallet.address, to: chain.token, data: transferData(10n ** 12n) };
    const refused = { error: { message: expect.stringMatching(/exceeds balance/) } };
    expect(await request(page, "eth_estimateGas", [tooMuch])).toMatchObject(refused);
    expect(await request(page, "eth_sendTransaction", [tooMuch])).toMatchObject(refused);
    await page.close();
  });

  it("refuses to send on chain 1, for another account, and when the person rejects (4001); nothing reaches the chain", async () => {
    const key = generatePrivateKey();
    const payer = await chain.newAccount({ privateKey: key });
    const { page, wallet } = await openPage(key);
    const transfer = { from: wallet.address, to: chain.token, data: transferData(1n) };
    expect(await request(page, "eth_sendTransaction", [transfer])).toMatchObject({ error: { code: 4901 } });
    expect(await request(page, "eth_blockNumber")).toMatchObject({ error: { code: 4901 } });

    await request(page, "wallet_switchEthereumChain", [{ chainId: localChainHex() }]);
    const other = await chain.newAccount({ tokens: 0n });
    expect(await request(page, "eth_sendTransaction", [{ ...transfer, from: other.address }])).toMatchObject({
      error: { code: 4100 },
    });
    wallet.rejectTransactions(true);
    expect(await request(page, "eth_sendTransaction", [transfer])).toEqual({
      error: { code: 4001, message: "User rejected the request." },
    });
    expect(await chain.publicClient.getTransactionCount({ address: payer.address })).toBe(0);

    wallet.rejectTransactions(false);
    expect(await request(page, "eth_sendTransaction", [transfer])).toMatchObject({
      result: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect(await chain.publicClient.getTransactionCount({ address: payer.address })).toBe(1);
    await page.close();
  });

  it("two transfers sent while mining is stopped get consecutive nonces and are mined as signed", async () => {
    const key = generatePrivateKey();
    await chain.newAccount({ privateKey: key });
    const { page, wallet } = await openPage(key);
    await request(page, "wallet_switchEthereumChain", [{ chainId: localChainHex() }]);
    await chain.stopMining();
    try {
      const hashes: Hex[] = [];
      for (const amount of [1n, 2n]) {
        const sent = await request(page, "eth_sendTransaction", [
          { from: wallet.address, to: chain.token, data: transferData(amount) },
        ]);
        if (!("result" in sent)) throw new Error(`eth_sendTransaction failed: ${sent.error.message}`);
        hashes.push(sent.result as Hex);
      }
      const pending = await Promise.all(hashes.map((hash) => chain.publicClient.getTransaction({ hash })));
      expect(pending.map((tx) => tx.nonce)).toEqual([0, 1]);
      // ganache re-labels a reused pending nonce instead of refusing it; only the signed bytes tell.
      for (const tx of pending) expect(hashAsSigned(tx)).toBe(tx.hash);
      await chain.startMining();
      await chain.mine();
      for (const hash of hashes)
        expect((await chain.publicClient.getTransactionReceipt({ hash })).status).toBe("success");
    } finally {
      await chain.startMining();
    }
    await page.close();
  });
});

function hashAsSigned(tx: Transaction): Hex {
  if (tx.type !== "eip1559") throw new Error(`unexpected transaction type ${tx.type}`);
  const { chainId, nonce, to, value, gas, maxFeePerGas, maxPriorityFeePerGas, input, accessList, r, s, yParity } = tx;
  const fields = {
    type: "eip1559",
    chainId,
    nonce,
    to,
    value,
    gas,
    maxFeePerGas,
    maxPriorityFeePerGas,
    data: input,
    accessList,
  } as const;
  return keccak256(serializeTransaction(fields, { r, s, yParity }));
}
