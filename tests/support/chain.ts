// A real local EVM for payment tests, `npm run chain` and the e2e wallet: ganache in a child process, the test
// ERC-20 and a smart-contract wallet compiled in-process with solc-js, and viem clients with local accounts.
// No vitest imports here: scripts/chain.ts and Playwright's global setup use it too.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import path from "node:path";
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeDeployData,
  encodeFunctionData,
  getContractAddress,
  http,
  numberToHex,
  parseEther,
  type Abi,
  type Address,
  type Chain,
  type Hash,
  type Hex,
  type HttpTransport,
  type PublicClient,
} from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";

/** Account 0 of ganache's deterministic mnemonic: on a fresh chain its nonce 0 deploys the token. */
export const deployerPrivateKey: Hex = "0x4f3edf983ac636a65a842ce7c78d9aa706d3b113bce9c46f30d7d21715b23b1d";
/** Account 1 of the same mnemonic; `npm run chain` uses its address as a treasury that survives restarts. */
export const deterministicAccount1Key: Hex = "0x6cbed15c793ce57650b9877cf6fa156fbef513c4e6134f022a85b1ffdd59b2a1";

export const testTokenDefaults = { name: "Test USD", symbol: "tUSD", decimals: 6 } as const;

// Written out (rather than taken from the compiler's output) so viem infers argument and event types; the
// chain test checks it against what solc produces.
export const testTokenAbi = [
  {
    type: "constructor",
    stateMutability: "nonpayable",
    inputs: [
      { name: "name_", type: "string" },
      { name: "symbol_", type: "string" },
      { name: "decimals_", type: "uint8" },
    ],
  },
  { type: "function", name: "name", stateMutability: "view", inputs: [], outputs: [{ name: "", type: "string" }] },
  { type: "function", name: "symbol", stateMutability: "view", inputs: [], outputs: [{ name: "", type: "string" }] },
  { type: "function", name: "decimals", stateMutability: "view", inputs: [], outputs: [{ name: "", type: "uint8" }] },
  {
    type: "function",
    name: "totalSupply",
    stateMutability: "view",
    inputs: [],
    outputs: [{ name: "", type: "uint256" }],
  },
  { type: "function", name: "owner", stateMutability: "view", inputs: [], outputs: [{ name: "", type: "address" }] },
  {
    type: "function",
    name: "balanceOf",
    stateMutability: "view",
    inputs: [{ name: "", type: "address" }],
    outputs: [{ name: "", type: "uint256" }],
  },
  {
    type: "function",
    name: "allowance",
    stateMutability: "view",
    inputs: [
      { name: "", type: "address" },
      { name: "", type: "address" },
    ],
    outputs: [{ name: "", type: "uint256" }],
  },
  {
    type: "function",
    name: "mint",
    stateMutability: "nonpayable",
    inputs: [
      { name: "to", type: "address" },
      { name: "amount", type: "uint256" },
    ],
    outputs: [],
  },
  {
    type: "function",
    name: "transfer",
    stateMutability: "nonpayable",
    inputs: [
      { name: "to", type: "address" },
      { name: "amount", type: "uint256" },
    ],
    outputs: [{ name: "", type: "bool" }],
  },
  {
    type: "function",
    name: "approve",
    stateMutability: "nonpayable",
    inputs: [
      { name: "spender", type: "address" },
      { name: "amount", type: "uint256" },
    ],
    outputs: [{ name: "", type: "bool" }],
  },
  {
    type: "function",
    name: "transferFrom",
    stateMutability: "nonpayable",
    inputs: [
      { name: "from", type: "address" },
      { name: "to", type: "address" },
      { name: "amount", type: "uint256" },
    ],
    outputs: [{ name: "", type: "bool" }],
  },
  {
    type: "event",
    name: "Transfer",
    anonymous: false,
    inputs: [
      { name: "from", type: "address", indexed: true },
      { name: "to", type: "address", indexed: true },
      { name: "value", type: "uint256", indexed: false },
    ],
  },
  {
    type: "event",
    name: "Approval",
    anonymous: false,
    inputs: [
      { name: "owner", type: "address", indexed: true },
      { name: "spender", type: "address", indexed: true },
      { name: "value", type: "uint256", indexed: false },
    ],
  },
] as const;

export const paymentForwarderAbi = [
  { type: "constructor", stateMutability: "nonpayable", inputs: [{ name: "owner_", type: "address" }] },
  { type: "function", name: "owner", stateMutability: "view", inputs: [], outputs: [{ name: "", type: "address" }] },
  {
    type: "function",
    name: "pay",
    stateMutability: "nonpayable",
    inputs: [
      { name: "token", type: "address" },
      { name: "to", type: "address" },
      { name: "amount", type: "uint256" },
    ],
    outputs: [],
  },
] as const;

export const paymentBatchAbi = [
  {
    type: "function",
    name: "payAndCollect",
    stateMutability: "nonpayable",
    inputs: [
      { name: "token", type: "address" },
      { name: "to", type: "address" },
      { name: "ownAmount", type: "uint256" },
      { name: "callerAmount", type: "uint256" },
    ],
    outputs: [],
  },
] as const;

/** AuthorizedToken (contracts/AuthorizedToken.sol): an ERC-20 with EIP-3009 transferWithAuthorization. */
export const authorizedTokenAbi = [
  {
    type: "constructor",
    stateMutability: "nonpayable",
    inputs: [
      { name: "name_", type: "string" },
      { name: "symbol_", type: "string" },
      { name: "version_", type: "string" },
      { name: "decimals_", type: "uint8" },
    ],
  },
  { type: "function", name: "name", stateMutability: "view", inputs: [], outputs: [{ name: "", type: "string" }] },
  { type: "function", name: "version", stateMutability: "view", inputs: [], outputs: [{ name: "", type: "string" }] },
  {
    type: "function",
    name: "DOMAIN_SEPARATOR",
    stateMutability: "view",
    inputs: [],
    outputs: [{ name: "", type: "bytes32" }],
  },
  {
    type: "function",
    name: "authorizationState",
    stateMutability: "view",
    inputs: [
      { name: "", type: "address" },
      { name: "", type: "bytes32" },
    ],
    outputs: [{ name: "", type: "bool" }],
  },
] as const;

export const authorizedTokenDefaults = { name: "USD Coin", symbol: "USDC", version: "2", decimals: 6 } as const;

export interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
}

export interface LocalChain {
  rpcUrl: string;
  chainId: number;
  /** TestToken "Test USD" / "tUSD" (or, with `token: "eip3009"`, AuthorizedToken "USD Coin" / "USDC"), 6 decimals, deployed by `deployer`. */
  token: Address;
  /** Receives payments; not the deployer. */
  treasury: Address;
  deployer: PrivateKeyAccount;
  publicClient: PublicClient<HttpTransport, Chain>;
  /** A new funded account: `eth` wei for gas (default 10 ETH) and `tokens` base units of `token` (default 1_000 tokens). */
  newAccount(opts?: { eth?: bigint; tokens?: bigint; privateKey?: Hex }): Promise<PrivateKeyAccount>;
  /** Adds `eth` wei to the balance and mints `tokens` base units of `token` (default: this.token) to `address`. */
  fund(address: Address, opts: { eth?: bigint; tokens?: bigint; token?: Address }): Promise<void>;
  /** ERC-20 transfer from `from` (default token: this.token); resolves with the tx hash once sent (and mined when mining is on). */
  transfer(from: PrivateKeyAccount, to: Address, amount: bigint, opts?: { token?: Address }): Promise<Hash>;
  /** A transfer that is mined but reverts (amount above the balance, explicit gas so estimation does not refuse it). */
  transferThatReverts(from: PrivateKeyAccount, to: Address, amount: bigint): Promise<Hash>;
  deployToken(opts?: { name?: string; symbol?: string; decimals?: number }): Promise<Address>;
  /** An AuthorizedToken (EIP-3009), its EIP-712 domain `name`/`version` (defaults: "USD Coin", "2"). */
  deployAuthorizedToken(opts?: {
    name?: string;
    symbol?: string;
    version?: string;
    decimals?: number;
  }): Promise<Address>;
  deployForwarder(owner: PrivateKeyAccount): Promise<Address>;
  deployBatch(): Promise<Address>;
  /** ERC-20 approve of `spender` by `owner` for `amount` of `token`. */
  approve(owner: PrivateKeyAccount, spender: Address, amount: bigint): Promise<Hash>;
  /**
   * caller calls batch.payAndCollect: one tx with two Transfer logs to `to`, first `ownAmount` from the batch
   * contract's balance, then `callerAmount` of the caller's tokens (approved to the batch beforehand).
   */
  payThroughBatch(
    caller: PrivateKeyAccount,
    batch: Address,
    to: Address,
    amounts: { own: bigint; caller: bigint },
  ): Promise<Hash>;
  /** owner calls forwarder.pay(token, to, amount): one tx whose Transfer log's `from` is the forwarder. */
  payThroughForwarder(owner: PrivateKeyAccount, forwarder: Address, to: Address, amount: bigint): Promise<Hash>;
  mine(blocks?: number): Promise<void>;
  blockNumber(): Promise<bigint>;
  snapshot(): Promise<Hex>;
  /** evm_revert: a reverted-away tx disappears (receipt and tx). */
  revert(id: Hex): Promise<void>;
  /** miner_stop: sent txs stay pending. */
  stopMining(): Promise<void>;
  /** miner_start: ganache mines the pending transactions straight away. */
  startMining(): Promise<void>;
  /** Kills the ganache process (and its process group). */
  stop(): Promise<void>;
}

export interface StartLocalChainOptions {
  /** Default: a free port. */
  port?: number;
  /** Default 31337. */
  chainId?: number;
  /** Forward ganache's output (each RPC method it serves) to stderr. */
  log?: boolean;
  /** Default: a fresh random address, so no test can accidentally sign for it. */
  treasury?: Address;
  /** `token`'s kind: the plain ERC-20 (default) or AuthorizedToken, with EIP-3009 (x402 tests). */
  token?: "erc20" | "eip3009";
}

const ethDefault = parseEther("10");
const tokensDefault = 1_000n * 10n ** BigInt(testTokenDefaults.decimals);
// Above what a token transfer needs (~35k-52k) so a reverting one still gets mined without estimation.
const revertingTransferGas = 120_000n;

/** The checkout root: where node_modules/ganache is (npm scripts, vitest and Playwright all run from it). */
function repoRoot(): string {
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "node_modules", "ganache", "dist", "node", "cli.js"))) return dir;
    if (path.dirname(dir) === dir)
      throw new Error(`node_modules/ganache not found from ${process.cwd()}: run npm install`);
  }
}

type Compiled = {
  TestToken: CompiledContract;
  PaymentForwarder: CompiledContract;
  PaymentBatch: CompiledContract;
  AuthorizedToken: CompiledContract;
};
let compiled: Compiled | undefined;

/** Compiles contracts/*.sol with solc-js in this process (no download, no network); memoised. */
export function compileContracts(): Compiled {
  if (compiled) return compiled;
  const root = repoRoot();
  // solc ships no types; this is the one function used.
  const solc = createRequire(path.join(root, "package.json"))("solc") as { compile(input: string): string };
  const files = ["TestToken.sol", "PaymentForwarder.sol", "PaymentBatch.sol", "AuthorizedToken.sol"];
  const input = {
    language: "Solidity",
    sources: Object.fromEntries(
      files.map((f) => [f, { content: readFileSync(path.join(root, "contracts", f), "utf8") }]),
    ),
    settings: {
      // "paris": no PUSH0, so the bytecode also runs on chains that have not adopted Shanghai.
      evmVersion: "paris",
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
    },
  };
  type Output = {
    errors?: { severity: string; formattedMessage: string }[];
    contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as Output;
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) throw new Error(`solc: ${errors.map((e) => e.formattedMessage).join("\n")}`);
  const pick = (file: string, name: string): CompiledContract => {
    const contract = output.contracts?.[file]?.[name];
    if (!contract) throw new Error(`solc produced no ${name} in ${file}`);
    return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  };
  compiled = {
    TestToken: pick("TestToken.sol", "TestToken"),
    PaymentForwarder: pick("PaymentForwarder.sol", "PaymentForwarder"),
    PaymentBatch: pick("PaymentBatch.sol", "PaymentBatch"),
    AuthorizedToken: pick("AuthorizedToken.sol", "AuthorizedToken"),
  };
  return compiled;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

type RpcResponse = { result?: unknown; error?: { code: number; message: string } };

async function rawRpc(rpcUrl: string, method: string, params: unknown[] = []): Promise<unknown> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as RpcResponse;
  if (body.error) throw new Error(`${method}: ${body.error.message} (${body.error.code})`);
  return body.result;
}

// Runs in the ganache process before its CLI (node --import data:…). The parent holds the write end of the
// child's stdin; when the parent dies in any way (SIGKILL included, where no exit handler runs) the pipe
// closes and ganache exits instead of lingering as an orphan on a shared machine. Unref'd, so the watchdog
// alone never keeps a ganache alive (one that failed to bind its port must still exit).
const watchdog =
  `process.stdin.on("end", () => process.exit(0)); process.stdin.on("error", () => process.exit(0)); ` +
  `process.stdin.resume(); process.stdin.unref();`;

interface GanacheProcess {
  child: ChildProcess;
  output: () => string;
  kill(): Promise<void>;
}

function spawnGanache(port: number, chainId: number, log: boolean): GanacheProcess {
  const cli = path.join(repoRoot(), "node_modules", "ganache", "dist", "node", "cli.js");
  const args = ["--port", String(port), "--chain.chainId", String(chainId), "--wallet.deterministic"];
  if (!log) args.push("--logging.quiet");
  const child = spawn(
    process.execPath,
    ["--import", `data:text/javascript,${encodeURIComponent(watchdog)}`, cli, ...args],
    {
      // Its own process group: a Ctrl-C in the terminal reaches only the parent, which stops the chain itself,
      // and stop() can kill everything ganache might have started.
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, NODE_OPTIONS: "" },
    },
  );
  let output = "";
  const collect = (chunk: Buffer) => {
    // Keep the tail only: with logging on, ganache prints a line per request.
    output = (output + chunk.toString()).slice(-20_000);
    if (log) process.stderr.write(chunk);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  // The pipe's other end is the watchdog; an EPIPE once ganache has gone is expected, not an error.
  child.stdin?.on("error", () => undefined);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const killGroup = () => {
    if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  };
  process.on("exit", killGroup);
  return {
    child,
    output: () => output,
    async kill() {
      process.off("exit", killGroup);
      killGroup();
      await exited;
    },
  };
}

async function waitUntilAnswering(port: number, ganache: GanacheProcess, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | null = null;
  ganache.child.once("exit", (code) => (exitCode = code ?? -1));
  for (;;) {
    if (exitCode !== null) throw new Error(`ganache exited (${exitCode}) before answering:\n${ganache.output()}`);
    // Its own banner line first: when the port is taken, whatever already listens there would answer
    // eth_chainId too, and the tests would silently share someone else's chain.
    if (ganache.output().includes(`RPC Listening on 127.0.0.1:${port}`)) {
      try {
        return Number(await rawRpc(`http://127.0.0.1:${port}`, "eth_chainId"));
      } catch {
        // not answering yet
      }
    }
    if (ganache.output().includes("EADDRINUSE"))
      throw new Error(`port ${port} is taken (EADDRINUSE):\n${ganache.output()}`);
    if (Date.now() > deadline)
      throw new Error(`ganache did not answer on port ${port} within ${timeoutMs} ms:\n${ganache.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function startLocalChain(opts: StartLocalChainOptions = {}): Promise<LocalChain> {
  const chainId = opts.chainId ?? 31337;

  // A free port can be taken between asking and ganache binding it; only then is another port tried.
  let ganache: GanacheProcess | undefined;
  let port = 0;
  for (let attempt = 1; !ganache; attempt++) {
    port = opts.port ?? (await freePort());
    const candidate = spawnGanache(port, chainId, opts.log ?? false);
    try {
      // Compiling (~1 s, synchronous) overlaps ganache's own start-up in the other process.
      compileContracts();
      const answered = await waitUntilAnswering(port, candidate, 30_000);
      if (answered !== chainId) throw new Error(`ganache on port ${port} answers chain id ${answered}, not ${chainId}`);
      ganache = candidate;
    } catch (error) {
      await candidate.kill();
      if (opts.port !== undefined || attempt >= 3 || !candidate.output().includes("EADDRINUSE")) throw error;
    }
  }
  const process_ = ganache;
  const { TestToken, PaymentForwarder, PaymentBatch, AuthorizedToken } = compileContracts();
  const rpcUrl = `http://127.0.0.1:${port}`;

  const chain = defineChain({
    id: chainId,
    name: "Local test chain",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  // cacheTime 0: tests mine blocks between reads, and a cached block number would hide them.
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl), cacheTime: 0, pollingInterval: 50 });
  const rpc = (method: string, params: unknown[] = []) => rawRpc(rpcUrl, method, params);
  const deployer = privateKeyToAccount(deployerPrivateKey);
  const treasury = opts.treasury ?? privateKeyToAccount(generatePrivateKey()).address;
  let mining = true;

  // ganache's eth_getTransactionCount(…, "pending") ignores its own pool, so with mining stopped a second
  // transaction from one account would reuse the first one's nonce. The pool itself (txpool_content) is
  // authoritative and, unlike a local counter, stays right across evm_revert.
  async function nextNonce(address: Address): Promise<number> {
    const mined = await publicClient.getTransactionCount({ address, blockTag: "latest" });
    const pool = (await rpc("txpool_content")) as Record<"pending" | "queued", Record<string, Record<string, unknown>>>;
    const queuedNonces = [pool.pending, pool.queued].flatMap((byAccount) =>
      Object.keys(byAccount[address.toLowerCase()] ?? {}),
    );
    return Math.max(mined, ...queuedNonces.map((n) => Number(n) + 1));
  }

  // One send at a time per account: concurrent sends would both read the same next nonce.
  const sendQueues = new Map<Address, Promise<unknown>>();
  function serialised<T>(address: Address, task: () => Promise<T>): Promise<T> {
    const previous = sendQueues.get(address) ?? Promise.resolve();
    const next = previous.then(task, task);
    sendQueues.set(
      address,
      next.catch(() => undefined),
    );
    return next;
  }

  async function settle(hash: Hash): Promise<void> {
    if (!mining) return;
    await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 30_000 });
  }

  function walletFor(account: PrivateKeyAccount) {
    return createWalletClient({ account, chain, transport: http(rpcUrl), cacheTime: 0, pollingInterval: 50 });
  }

  async function sendCall(account: PrivateKeyAccount, to: Address, data: Hex, gas?: bigint): Promise<Hash> {
    return serialised(account.address, async () => {
      const hash = await walletFor(account).sendTransaction({ to, data, gas, nonce: await nextNonce(account.address) });
      await settle(hash);
      return hash;
    });
  }

  async function deploy(bytecode: Hex, deployData: Hex): Promise<Address> {
    return serialised(deployer.address, async () => {
      const nonce = await nextNonce(deployer.address);
      const hash = await walletFor(deployer).sendTransaction({ data: deployData, nonce });
      await settle(hash);
      if (mining) {
        const receipt = await publicClient.getTransactionReceipt({ hash });
        if (receipt.status !== "success") throw new Error(`deploying ${bytecode.slice(0, 10)}… reverted (${hash})`);
      }
      return getContractAddress({ from: deployer.address, nonce: BigInt(nonce) });
    });
  }

  const local: LocalChain = {
    rpcUrl,
    chainId,
    token: "0x0000000000000000000000000000000000000000",
    treasury,
    deployer,
    publicClient,

    async newAccount({ eth = ethDefault, tokens = tokensDefault, privateKey } = {}) {
      const account = privateKeyToAccount(privateKey ?? generatePrivateKey());
      await local.fund(account.address, { eth, tokens });
      return account;
    },

    async fund(address, { eth = 0n, tokens = 0n, token = local.token }) {
      // ETH by setting the balance: no transaction, so funding works with mining stopped and costs no block.
      if (eth > 0n) {
        const balance = await publicClient.getBalance({ address });
        await rpc("evm_setAccountBalance", [address, numberToHex(balance + eth)]);
      }
      if (tokens > 0n) {
        const data = encodeFunctionData({ abi: testTokenAbi, functionName: "mint", args: [address, tokens] });
        await sendCall(deployer, token, data);
      }
    },

    async transfer(from, to, amount, { token = local.token } = {}) {
      const data = encodeFunctionData({ abi: testTokenAbi, functionName: "transfer", args: [to, amount] });
      return sendCall(from, token, data);
    },

    async transferThatReverts(from, to, amount) {
      const data = encodeFunctionData({ abi: testTokenAbi, functionName: "transfer", args: [to, amount] });
      return sendCall(from, local.token, data, revertingTransferGas);
    },

    async deployToken({
      name = testTokenDefaults.name,
      symbol = testTokenDefaults.symbol,
      decimals = testTokenDefaults.decimals,
    } = {}) {
      const data = encodeDeployData({
        abi: testTokenAbi,
        bytecode: TestToken.bytecode,
        args: [name, symbol, decimals],
      });
      return deploy(TestToken.bytecode, data);
    },

    async deployAuthorizedToken({
      name = authorizedTokenDefaults.name,
      symbol = authorizedTokenDefaults.symbol,
      version = authorizedTokenDefaults.version,
      decimals = authorizedTokenDefaults.decimals,
    } = {}) {
      const data = encodeDeployData({
        abi: authorizedTokenAbi,
        bytecode: AuthorizedToken.bytecode,
        args: [name, symbol, version, decimals],
      });
      return deploy(AuthorizedToken.bytecode, data);
    },

    async deployForwarder(owner) {
      const data = encodeDeployData({
        abi: paymentForwarderAbi,
        bytecode: PaymentForwarder.bytecode,
        args: [owner.address],
      });
      return deploy(PaymentForwarder.bytecode, data);
    },

    async deployBatch() {
      return deploy(PaymentBatch.bytecode, PaymentBatch.bytecode);
    },

    async approve(owner, spender, amount) {
      const data = encodeFunctionData({ abi: testTokenAbi, functionName: "approve", args: [spender, amount] });
      return sendCall(owner, local.token, data);
    },

    async payThroughBatch(caller, batch, to, { own, caller: callerAmount }) {
      const data = encodeFunctionData({
        abi: paymentBatchAbi,
        functionName: "payAndCollect",
        args: [local.token, to, own, callerAmount],
      });
      return sendCall(caller, batch, data);
    },

    async payThroughForwarder(owner, forwarder, to, amount) {
      const data = encodeFunctionData({
        abi: paymentForwarderAbi,
        functionName: "pay",
        args: [local.token, to, amount],
      });
      return sendCall(owner, forwarder, data);
    },

    async mine(blocks = 1) {
      await rpc("evm_mine", [{ blocks }]);
    },

    blockNumber: () => publicClient.getBlockNumber({ cacheTime: 0 }),

    async snapshot() {
      return (await rpc("evm_snapshot")) as Hex;
    },

    async revert(id) {
      // ganache answers false (not an error) for an unknown or already used snapshot id.
      if ((await rpc("evm_revert", [id])) !== true)
        throw new Error(`evm_revert(${id}) failed: unknown or already used snapshot`);
    },

    async stopMining() {
      await rpc("miner_stop");
      mining = false;
    },

    async startMining() {
      await rpc("miner_start");
      mining = true;
    },

    stop: () => process_.kill(),
  };

  try {
    local.token = opts.token === "eip3009" ? await local.deployAuthorizedToken() : await local.deployToken();
  } catch (error) {
    await process_.kill();
    throw error;
  }
  return local;
}
