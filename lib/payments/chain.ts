// What the server reads from the payments chain, through its own RPC only (PAYMENTS_RPC_URL): the token's
// metadata, a transaction's fate (unknown, pending, mined: status, block, the token's Transfer logs to the
// treasury, and the EIP-3009 authorizations its payers used in it) and the treasury's incoming transfers over a block
// range. It decides nothing: the rules are in
// lib/domain/top-ups.ts. Every call records whether the RPC answered, which /api/health reports.
import {
  createPublicClient,
  getAddress,
  http,
  parseAbi,
  parseEventLogs,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type Address,
  type Hash,
  type PublicClient,
} from "viem";
import type { PaymentsConfig } from "@/lib/env";
import { processState } from "@/lib/singleton";

export const erc20Abi = parseAbi([
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "function decimals() view returns (uint8)",
  "function symbol() view returns (string)",
  // EIP-3009's (USDC's): a pay-per-call payment's authorization, used (CONTRACT §15). A plain ERC-20 emits none.
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
]);

/** The RPC did not answer (or answered with an error): nothing may be concluded about the payment. */
export class PaymentsRpcError extends Error {
  override readonly name = "PaymentsRpcError";
}

/** One `Transfer` of the token to the treasury. */
export interface TreasuryTransfer {
  txHash: Hash;
  from: Address;
  value: bigint;
  blockNumber: bigint;
  blockHash: Hash;
  logIndex: number;
}

export type TransactionObservation =
  | { state: "unknown" }
  | { state: "pending" }
  | {
      state: "mined";
      reverted: boolean;
      blockNumber: bigint;
      blockHash: Hash;
      /** Whether the block that holds it is still the chain's block at that height. */
      canonical: boolean;
      head: bigint;
      transfers: TreasuryTransfer[];
      /** The EIP-3009 authorizations used in it by the senders of `transfers`. */
      authorizationsUsed: AuthorizationUsed[];
    };

/** One `AuthorizationUsed` log of the token: whose authorization (`authorizer`, lower-case `nonce`), in which transaction. */
export interface AuthorizationUsed {
  txHash: Hash;
  authorizer: Address;
  nonce: Hash;
}

export interface TokenMetadata {
  decimals: number;
  symbol: string;
}

// Per process, not per copy of this module: the watcher's calls must show in /api/health, served by another copy.
const rpcHealth = processState("payments-rpc-health", () => ({ lastOutcome: "ok" as "ok" | "degraded" }));

/** Whether the payments RPC answered the last call (for /api/health). */
export const paymentsRpcHealth = () => rpcHealth.lastOutcome;

/** Runs a call on the payments RPC, recording whether it answered; a failure becomes PaymentsRpcError. */
export async function rpc<T>(call: () => Promise<T>): Promise<T> {
  try {
    const value = await call();
    rpcHealth.lastOutcome = "ok";
    return value;
  } catch (error) {
    // "Not found" answers are answers: the RPC is up and the transaction is not there.
    if (error instanceof TransactionNotFoundError || error instanceof TransactionReceiptNotFoundError) {
      rpcHealth.lastOutcome = "ok";
      throw error;
    }
    rpcHealth.lastOutcome = "degraded";
    throw new PaymentsRpcError(
      `The payments RPC did not answer: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`,
      { cause: error },
    );
  }
}

const clients = new Map<string, PublicClient>();

/** The server's one client of its payments RPC (per URL). */
export function clientOf(config: PaymentsConfig): PublicClient {
  let client = clients.get(config.rpcUrl);
  if (!client) {
    // No caching and no retries of our own: the watcher's loop retries with backoff, a request answers 503.
    client = createPublicClient({ transport: http(config.rpcUrl, { timeout: 5_000, retryCount: 0 }), cacheTime: 0 });
    clients.set(config.rpcUrl, client);
  }
  return client;
}

export async function readChainId(config: PaymentsConfig): Promise<number> {
  return rpc(() => clientOf(config).getChainId());
}

export async function readHead(config: PaymentsConfig): Promise<bigint> {
  return rpc(() => clientOf(config).getBlockNumber({ cacheTime: 0 }));
}

const tokenMetadata = new Map<string, TokenMetadata>();

/** The token's decimals and symbol, read from the contract once per process. */
export async function readTokenMetadata(config: PaymentsConfig): Promise<TokenMetadata> {
  const key = `${config.chainId}:${config.tokenAddress.toLowerCase()}`;
  const known = tokenMetadata.get(key);
  if (known) return known;
  const client = clientOf(config);
  const [decimals, symbol] = await rpc(() =>
    Promise.all([
      client.readContract({ address: config.tokenAddress, abi: erc20Abi, functionName: "decimals" }),
      client.readContract({ address: config.tokenAddress, abi: erc20Abi, functionName: "symbol" }),
    ]),
  );
  const metadata = { decimals: Number(decimals), symbol };
  tokenMetadata.set(key, metadata);
  return metadata;
}

const isNotFound = (error: unknown) =>
  error instanceof TransactionNotFoundError || error instanceof TransactionReceiptNotFoundError;

/** What the chain says of a transaction now: its receipt, the token's transfers to the treasury in it, and whether its block is canonical. */
export async function observeTransaction(config: PaymentsConfig, txHash: Hash): Promise<TransactionObservation> {
  const client = clientOf(config);
  const receipt = await rpc(() => client.getTransactionReceipt({ hash: txHash })).catch((error: unknown) => {
    if (isNotFound(error)) return undefined;
    throw error;
  });
  if (!receipt) {
    const transaction = await rpc(() => client.getTransaction({ hash: txHash })).catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw error;
    });
    return transaction ? { state: "pending" } : { state: "unknown" };
  }
  const [block, head] = await Promise.all([
    rpc(() => client.getBlock({ blockNumber: receipt.blockNumber })),
    rpc(() => client.getBlockNumber({ cacheTime: 0 })),
  ]);
  const transfers = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs })
    .filter((log) => sameAddress(log.address, config.tokenAddress) && sameAddress(log.args.to, config.treasuryAddress))
    .map((log) => ({
      txHash,
      from: getAddress(log.args.from),
      value: log.args.value,
      blockNumber: receipt.blockNumber,
      blockHash: receipt.blockHash,
      logIndex: log.logIndex,
    }));
  const authorizationsUsed = parseEventLogs({ abi: erc20Abi, eventName: "AuthorizationUsed", logs: receipt.logs })
    .filter(
      (log) =>
        sameAddress(log.address, config.tokenAddress) &&
        transfers.some((t) => sameAddress(t.from, log.args.authorizer)),
    )
    .map((log) => ({
      txHash,
      authorizer: getAddress(log.args.authorizer),
      nonce: log.args.nonce.toLowerCase() as Hash,
    }));
  return {
    state: "mined",
    reverted: receipt.status !== "success",
    blockNumber: receipt.blockNumber,
    blockHash: receipt.blockHash,
    canonical: block.hash === receipt.blockHash,
    head,
    transfers,
    authorizationsUsed,
  };
}

/** The token's transfers to the treasury in blocks [fromBlock, toBlock], in chain order. */
export async function readTreasuryTransfers(
  config: PaymentsConfig,
  fromBlock: bigint,
  toBlock: bigint,
): Promise<TreasuryTransfer[]> {
  const logs = await rpc(() =>
    clientOf(config).getLogs({
      address: config.tokenAddress,
      event: erc20Abi[0],
      args: { to: config.treasuryAddress },
      fromBlock,
      toBlock,
    }),
  );
  return logs
    .filter(
      (log) =>
        !log.removed && log.transactionHash && log.blockHash && log.blockNumber !== null && log.logIndex !== null,
    )
    .map((log) => ({
      txHash: log.transactionHash as Hash,
      from: getAddress(log.args.from as Address),
      value: log.args.value as bigint,
      blockNumber: log.blockNumber as bigint,
      blockHash: log.blockHash as Hash,
      logIndex: log.logIndex as number,
    }));
}

/**
 * The most addresses one AuthorizationUsed query names in its topic-1 list: geth and op-geth refuse more than 1000
 * entries in a topic position, and other providers cap the request's size lower still.
 */
export const authorizersPerQuery = 100;

/**
 * The EIP-3009 authorizations `authorizers` used in blocks [fromBlock, toBlock] (the token's AuthorizationUsed logs,
 * filtered on topic 1, at most `authorizersPerQuery` addresses per call): which of the treasury's transfers are
 * pay-per-call payments' (CONTRACT §15).
 */
export async function readAuthorizationsUsed(
  config: PaymentsConfig,
  authorizers: Address[],
  fromBlock: bigint,
  toBlock: bigint,
): Promise<AuthorizationUsed[]> {
  const used: AuthorizationUsed[] = [];
  for (let start = 0; start < authorizers.length; start += authorizersPerQuery)
    used.push(
      ...(await readAuthorizationsUsedOf(
        config,
        authorizers.slice(start, start + authorizersPerQuery),
        fromBlock,
        toBlock,
      )),
    );
  return used;
}

async function readAuthorizationsUsedOf(
  config: PaymentsConfig,
  authorizers: Address[],
  fromBlock: bigint,
  toBlock: bigint,
): Promise<AuthorizationUsed[]> {
  const logs = await rpc(() =>
    clientOf(config).getLogs({
      address: config.tokenAddress,
      event: erc20Abi[3],
      args: { authorizer: authorizers },
      fromBlock,
      toBlock,
    }),
  );
  return logs
    .filter((log) => !log.removed && log.transactionHash && log.args.authorizer && log.args.nonce)
    .map((log) => ({
      txHash: log.transactionHash as Hash,
      authorizer: getAddress(log.args.authorizer as Address),
      nonce: (log.args.nonce as Hash).toLowerCase() as Hash,
    }));
}

export const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
