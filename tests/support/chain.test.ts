// The local chain the payment tests stand on: what each helper promises is checked here against the real
// ganache process, so a payment test that fails points at the server, not at its chain.
import { spawn } from "node:child_process";
import {
  keccak256,
  parseEventLogs,
  serializeTransaction,
  toEventSelector,
  toFunctionSelector,
  type Abi,
  type AbiEvent,
  type AbiFunction,
  type Transaction,
} from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  compileContracts,
  paymentBatchAbi,
  paymentForwarderAbi,
  startLocalChain,
  testTokenAbi,
  type LocalChain,
} from "./chain";

let chain: LocalChain;
beforeAll(async () => {
  chain = await startLocalChain();
});
afterAll(() => chain?.stop());

const balanceOf = (address: `0x${string}`) =>
  chain.publicClient.readContract({
    address: chain.token,
    abi: testTokenAbi,
    functionName: "balanceOf",
    args: [address],
  });

const transfersIn = async (hash: `0x${string}`) => {
  const receipt = await chain.publicClient.getTransactionReceipt({ hash });
  return { receipt, transfers: parseEventLogs({ abi: testTokenAbi, eventName: "Transfer", logs: receipt.logs }) };
};

/** Every function and event signature, so a handwritten ABI and the compiler's can be compared as sets. */
const signatures = (abi: Abi) =>
  abi
    .filter((item): item is AbiFunction | AbiEvent => item.type === "function" || item.type === "event")
    .map((item) => (item.type === "function" ? toFunctionSelector(item) : toEventSelector(item)))
    .sort();

/** The hash of the transaction as its fields and signature say it was signed (viem's transfers are EIP-1559). */
const hashAsSigned = (tx: Transaction) => {
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
};

describe("local chain", () => {
  it("answers on its RPC URL with the chain id, and the token is Test USD (tUSD, 6 decimals) owned by the deployer", async () => {
    expect(chain.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(chain.chainId).toBe(31337);
    expect(await chain.publicClient.getChainId()).toBe(31337);
    const read = <F extends "name" | "symbol" | "decimals" | "owner">(functionName: F) =>
      chain.publicClient.readContract({ address: chain.token, abi: testTokenAbi, functionName });
    expect(await Promise.all([read("name"), read("symbol"), read("decimals"), read("owner")])).toEqual([
      "Test USD",
      "tUSD",
      6,
      chain.deployer.address,
    ]);
    expect(chain.treasury).not.toBe(chain.deployer.address);
    expect(await balanceOf(chain.treasury)).toBe(0n);
  });

  it("the handwritten ABIs match what solc compiled", () => {
    const { TestToken, PaymentForwarder, PaymentBatch } = compileContracts();
    expect(signatures(testTokenAbi)).toEqual(signatures(TestToken.abi));
    expect(signatures(paymentForwarderAbi)).toEqual(signatures(PaymentForwarder.abi));
    expect(signatures(paymentBatchAbi)).toEqual(signatures(PaymentBatch.abi));
    expect(compileContracts()).toBe(compileContracts());
  });

  it("a new account has 10 ETH and 1,000 tokens; its transfer to the treasury is mined with one Transfer log", async () => {
    const payer = await chain.newAccount();
    expect(await chain.publicClient.getBalance({ address: payer.address })).toBe(10n * 10n ** 18n);
    expect(await balanceOf(payer.address)).toBe(1_000_000_000n);

    const hash = await chain.transfer(payer, chain.treasury, 2_500_000n);
    const { receipt, transfers } = await transfersIn(hash);
    expect(receipt.status).toBe("success");
    expect(receipt.from).toBe(payer.address.toLowerCase());
    expect(transfers).toHaveLength(1);
    expect(transfers[0].address).toBe(chain.token.toLowerCase());
    expect(transfers[0].args).toEqual({ from: payer.address, to: chain.treasury, value: 2_500_000n });
    // What a watcher scanning the chain sees.
    const logs = await chain.publicClient.getContractEvents({
      address: chain.token,
      abi: testTokenAbi,
      eventName: "Transfer",
      args: { to: chain.treasury },
      fromBlock: 0n,
    });
    expect(logs.map((log) => log.transactionHash)).toContain(hash);
    expect(await balanceOf(chain.treasury)).toBeGreaterThanOrEqual(2_500_000n);
  });

  it("funds and transfers another token, and a new account with chosen amounts", async () => {
    const other = await chain.deployToken({ name: "Other", symbol: "OTH", decimals: 18 });
    expect(other).not.toBe(chain.token);
    const payer = await chain.newAccount({ eth: 10n ** 17n, tokens: 0n });
    expect(await chain.publicClient.getBalance({ address: payer.address })).toBe(10n ** 17n);
    expect(await balanceOf(payer.address)).toBe(0n);
    await chain.fund(payer.address, { tokens: 7n, token: other });
    const { transfers, receipt } = await transfersIn(await chain.transfer(payer, chain.treasury, 7n, { token: other }));
    expect(receipt.status).toBe("success");
    expect(transfers[0].address).toBe(other.toLowerCase());
    expect(transfers[0].args).toEqual({ from: payer.address, to: chain.treasury, value: 7n });
  });

  it("a payment through the forwarder is sent by its owner, but its Transfer log is from the forwarder", async () => {
    const owner = await chain.newAccount({ tokens: 0n });
    const forwarder = await chain.deployForwarder(owner);
    await chain.fund(forwarder, { tokens: 5_000_000n });
    const hash = await chain.payThroughForwarder(owner, forwarder, chain.treasury, 3_000_000n);
    const { receipt, transfers } = await transfersIn(hash);
    expect(receipt.status).toBe("success");
    expect(receipt.from).toBe(owner.address.toLowerCase());
    expect(receipt.to).toBe(forwarder.toLowerCase());
    expect(transfers.map((t) => t.args)).toEqual([{ from: forwarder, to: chain.treasury, value: 3_000_000n }]);
    expect(await balanceOf(forwarder)).toBe(2_000_000n);
    // Only its owner may spend from it.
    const stranger = await chain.newAccount({ tokens: 0n });
    await expect(chain.payThroughForwarder(stranger, forwarder, stranger.address, 1n)).rejects.toThrow(/not the owner/);
  });

  it("a transfer above the balance is mined and reverted: no Transfer log, no balance moves", async () => {
    const payer = await chain.newAccount({ tokens: 1_000_000n });
    const before = await balanceOf(chain.treasury);
    // The ordinary helper refuses it up front (gas estimation fails), as a wallet would.
    await expect(chain.transfer(payer, chain.treasury, 1_000_001n)).rejects.toThrow(/exceeds balance/);
    const hash = await chain.transferThatReverts(payer, chain.treasury, 1_000_001n);
    const { receipt, transfers } = await transfersIn(hash);
    expect(receipt.status).toBe("reverted");
    expect(receipt.blockNumber).toBeGreaterThan(0n);
    expect(transfers).toEqual([]);
    expect(await balanceOf(payer.address)).toBe(1_000_000n);
    expect(await balanceOf(chain.treasury)).toBe(before);
  });

  it("with mining stopped a transfer stays pending (no receipt) until mining resumes; mine() adds blocks", async () => {
    const payer = await chain.newAccount();
    await chain.stopMining();
    try {
      // Sent together from one account: each needs its own nonce although neither is mined yet.
      const [first, second] = await Promise.all([
        chain.transfer(payer, chain.treasury, 1n),
        chain.transfer(payer, chain.treasury, 2n),
      ]);
      for (const hash of [first, second]) {
        await expect(chain.publicClient.getTransactionReceipt({ hash })).rejects.toThrow(/could not be found/);
        expect((await chain.publicClient.getTransaction({ hash })).blockNumber).toBeNull();
      }
      // ganache accepts a second transaction signed with an already pending nonce and silently reports it with
      // the next one, so the nonces alone prove nothing: each transaction must also hash as it was signed.
      const pending = await Promise.all([first, second].map((hash) => chain.publicClient.getTransaction({ hash })));
      expect(pending.map((tx) => tx.nonce)).toEqual([0, 1]);
      for (const tx of pending) expect(hashAsSigned(tx)).toBe(tx.hash);
      const height = await chain.blockNumber();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await chain.blockNumber()).toBe(height);
      await chain.startMining();
      await chain.mine();
      for (const hash of [first, second])
        expect((await chain.publicClient.getTransactionReceipt({ hash })).status).toBe("success");
      expect(await balanceOf(payer.address)).toBe(1_000_000_000n - 3n);
    } finally {
      await chain.startMining();
    }
    const height = await chain.blockNumber();
    await chain.mine(3);
    expect(await chain.blockNumber()).toBe(height + 3n);
  });

  it("evm_revert to a snapshot removes a mined transfer: its receipt and the transaction are gone", async () => {
    const payer = await chain.newAccount();
    const id = await chain.snapshot();
    const height = await chain.blockNumber();
    const hash = await chain.transfer(payer, chain.treasury, 4n);
    expect((await chain.publicClient.getTransactionReceipt({ hash })).status).toBe("success");
    await chain.revert(id);
    await expect(chain.publicClient.getTransactionReceipt({ hash })).rejects.toThrow(/could not be found/);
    await expect(chain.publicClient.getTransaction({ hash })).rejects.toThrow(/could not be found/);
    expect(await chain.blockNumber()).toBe(height);
    expect(await balanceOf(payer.address)).toBe(1_000_000_000n);
    // A snapshot is used up by reverting to it.
    await expect(chain.revert(id)).rejects.toThrow(/evm_revert/);
  });

  it("refuses a port that is already taken instead of using whatever listens there", async () => {
    await expect(startLocalChain({ port: Number(new URL(chain.rpcUrl).port) })).rejects.toThrow(/EADDRINUSE/);
    // The chain that holds the port is untouched: its token is still the first contract the deployer made.
    expect(await chain.publicClient.getTransactionCount({ address: chain.deployer.address })).toBeGreaterThan(0);
    expect(await chain.publicClient.getBytecode({ address: chain.token })).toMatch(/^0x[0-9a-f]+$/);
  });

  it("ganache dies with the process that started it, even one killed with SIGKILL", async () => {
    const parent = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "-e",
        `require("./tests/support/chain.ts").startLocalChain().then((c) => console.log(c.rpcUrl))`,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const rpcUrl = await new Promise<string>((resolve, reject) => {
      let out = "";
      parent.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const url = out.match(/http:\/\/127\.0\.0\.1:\d+/)?.[0];
        if (url) resolve(url);
      });
      parent.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
      parent.once("exit", () => reject(new Error(`the chain's parent exited early: ${out}`)));
    });
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId" });
    const answers = () =>
      fetch(rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body }).then(
        (res) => res.ok,
        () => false,
      );
    expect(await answers()).toBe(true);
    parent.kill("SIGKILL");
    await expect.poll(answers, { timeout: 5_000, interval: 100 }).toBe(false);
  });

  it("stop() kills ganache: the RPC stops answering", async () => {
    const answers = () =>
      chain.publicClient.getChainId().then(
        () => true,
        () => false,
      );
    expect(await answers()).toBe(true);
    await chain.stop();
    expect(await answers()).toBe(false);
    await chain.stop();
  });
});
