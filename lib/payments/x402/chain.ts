// What pay per call (CONTRACT §15) asks of the payments chain, through the server's own RPC only: the token's
// EIP-712 domain, an authorization's state, the payer's balance, a simulation of the settlement, and the
// settler's transaction sent and followed. It decides nothing: the rules are in ./payment.ts and ./settler.ts.
import {
  createWalletClient,
  decodeEventLog,
  decodeFunctionData,
  defineChain,
  encodeFunctionData,
  formatLog,
  http,
  keccak256,
  parseAbi,
  parseSignature,
  pad,
  parseTransaction,
  size,
  toEventSelector,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  WaitForTransactionReceiptTimeoutError,
  type Address,
  type Hash,
  type Hex,
  type Log,
  type RpcLog,
  type TransactionReceipt,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { X402Config } from "@/lib/env";
import { DomainError } from "@/lib/domain/errors";
import { log } from "@/lib/log";
import { clientOf, rpc, sameAddress } from "@/lib/payments/chain";
import { recordTransferLogSide, transferLogState } from "./transfer-log-side";

// The two overloads the official x402 facilitators call: (v, r, s) for a 65-byte signature, `bytes` otherwise.
export const eip3009Abi = parseAbi([
  "function name() view returns (string)",
  "function version() view returns (string)",
  "function balanceOf(address) view returns (uint256)",
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
]);

const authorizationUsedEvent = eip3009Abi.find(
  (item) => item.type === "event" && item.name === "AuthorizationUsed",
) as Extract<(typeof eip3009Abi)[number], { type: "event" }>;

// The logs that say what an authorization's use moved, or that it was canceled instead (EIP-3009's cancelAuthorization).
const tokenEvents = parseAbi([
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
  "event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)",
]);
const canceledEvent = tokenEvents[2];

/** The token's EIP-712 domain, as its signatures are made (the offer's `extra`). */
export interface TokenDomain {
  name: string;
  version: string;
}

/** An EIP-3009 authorization, with the payee the server offered (never the client's echo). */
export interface Authorization {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
  signature: Hex;
}

const domains = new Map<string, TokenDomain>();

/** The token's EIP-712 name and version, read from the contract once per process. */
export async function readTokenDomain(config: X402Config): Promise<TokenDomain> {
  const key = `${config.chainId}:${config.tokenAddress.toLowerCase()}`;
  const known = domains.get(key);
  if (known) return known;
  const client = clientOf(config);
  const [name, version] = await rpc(() =>
    Promise.all([
      client.readContract({ address: config.tokenAddress, abi: eip3009Abi, functionName: "name" }),
      client.readContract({ address: config.tokenAddress, abi: eip3009Abi, functionName: "version" }),
    ]),
  );
  const domain = { name, version };
  domains.set(key, domain);
  return domain;
}

/**
 * Whether the authorization's nonce is used (or canceled): at the latest block, or at `blockNumber`. A "no" that
 * fails a payment is read at a block where the answer is known to be final for it (see transferElsewhere): a node
 * behind a load balancer that has not seen that block errs (an RPC failure), never answers from an older state.
 */
export const readAuthorizationUsed = (
  config: X402Config,
  from: Address,
  nonce: Hex,
  blockNumber?: bigint,
): Promise<boolean> =>
  rpc(() =>
    clientOf(config).readContract({
      address: config.tokenAddress,
      abi: eip3009Abi,
      functionName: "authorizationState",
      args: [from, nonce],
      ...(blockNumber === undefined ? {} : { blockNumber }),
    }),
  );

export const readTokenBalance = (config: X402Config, owner: Address): Promise<bigint> =>
  rpc(() =>
    clientOf(config).readContract({
      address: config.tokenAddress,
      abi: eip3009Abi,
      functionName: "balanceOf",
      args: [owner],
    }),
  );

export const settlerOf = (config: X402Config) => privateKeyToAccount(config.settlerKey);

export const readSettlerBalance = (config: X402Config): Promise<bigint> =>
  rpc(() => clientOf(config).getBalance({ address: settlerOf(config).address }));

/** The settlement's call: the overload the signature's length takes. */
function settlementCall(config: X402Config, a: Authorization) {
  const head = [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce] as const;
  if (size(a.signature) === 65) {
    const { v, r, s, yParity } = parseSignature(a.signature);
    return {
      address: config.tokenAddress,
      abi: eip3009Abi,
      functionName: "transferWithAuthorization" as const,
      args: [...head, Number(v ?? BigInt(yParity + 27)), r, s] as const,
    };
  }
  return {
    address: config.tokenAddress,
    abi: eip3009Abi,
    functionName: "transferWithAuthorization" as const,
    args: [...head, a.signature] as const,
  };
}

/** A call the chain refused (a revert), not an RPC that did not answer. */
export class SimulationRevertedError extends Error {
  override readonly name = "SimulationRevertedError";
}

/**
 * The most gas a settlement's simulation may measure: an EOA's transferWithAuthorization uses about 60-90 k, a
 * contract wallet's (ERC-1271) signature check some more; above this the payment is refused before any nonce.
 */
export const maxSettlementGas = 500_000n;

/**
 * Runs the settlement as the settler would send it, on the chain's latest state, and returns the gas it
 * takes: a revert throws SimulationRevertedError; an RPC that does not answer, PaymentsRpcError.
 */
export async function simulateSettlement(config: X402Config, a: Authorization): Promise<bigint> {
  const client = clientOf(config);
  const call = { ...settlementCall(config, a), account: settlerOf(config).address };
  try {
    await client.simulateContract(call as Parameters<typeof client.simulateContract>[0]);
    const gas = await client.estimateContractGas(call as Parameters<typeof client.estimateContractGas>[0]);
    // A payer's contract wallet whose signature check burns gas would make a settlement the settler cannot send
    // (its gas above the settler's balance or the chain's cap): its nonce taken, every later settlement behind it.
    if (gas > maxSettlementGas)
      throw new SimulationRevertedError(
        `The transfer needs ${gas} gas, above the ${maxSettlementGas} a settlement may use.`,
      );
    return gas;
  } catch (error) {
    if (error instanceof SimulationRevertedError) throw error;
    // Reverts and refusals come back as errors with an answer; a transport failure has none.
    if (isRevert(error))
      throw new SimulationRevertedError(error instanceof Error ? error.message.split("\n")[0] : String(error));
    return rpc(() => Promise.reject(error));
  }
}

/**
 * Whether the chain answered "this call reverts": revert data, or a node's own word for a revert (JSON-RPC code
 * 3, or its message saying so, as ganache's "VM Exception … revert"). viem also reads a bare -32603 "internal
 * error" as a revert; without revert data that is an RPC failure like any other (an overloaded node, a proxy),
 * which says nothing about the payment: the caller answers 503, charging nothing, and never refuses it.
 */
export function isRevert(error: unknown): boolean {
  for (
    let e = error, depth = 0;
    e && typeof e === "object" && depth < 10;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const { name, code, details, raw, data, signature } = e as Record<string, unknown>;
    if (name === "ExecutionRevertedError") return true;
    if (
      name === "ContractFunctionRevertedError" &&
      (raw !== undefined || data !== undefined || signature !== undefined)
    )
      return true;
    if (name === "RpcRequestError" || (typeof code === "number" && typeof details === "string"))
      if (code === 3 || /revert/i.test(String(details))) return true;
  }
  return false;
}

/** A settlement signed for one nonce of the settler: its hash is known before it is sent. */
export interface SignedSettlement {
  hash: Hash;
  raw: Hex;
}

/** The settler's next nonce as the chain knows it (its pending transactions counted where the node counts them). */
export const readSettlerNonce = (config: X402Config): Promise<number> =>
  rpc(() => clientOf(config).getTransactionCount({ address: settlerOf(config).address, blockTag: "pending" }));

function settlerWallet(config: X402Config) {
  const chain = defineChain({
    id: config.chainId,
    name: `Chain ${config.chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [config.rpcUrl] } },
  });
  return createWalletClient({
    account: settlerOf(config),
    chain,
    transport: http(config.rpcUrl, { timeout: 5_000, retryCount: 0 }),
  });
}

/** Signs the settlement with the settler's key for `nonce`, with the gas the simulation measured (and room). */
export async function signSettlement(
  config: X402Config,
  a: Authorization,
  nonce: number,
  gas: bigint,
): Promise<SignedSettlement> {
  const wallet = settlerWallet(config);
  const call = settlementCall(config, a);
  const data = encodeFunctionData(call as Parameters<typeof encodeFunctionData>[0]);
  // Fixed gas: the settlement is not estimated again when sent, so a state change in between makes it revert
  // on-chain (status 0, nothing moved) rather than fail to send.
  const request = await rpc(() =>
    wallet.prepareTransactionRequest({ to: config.tokenAddress, data, nonce, gas: (gas * 12n) / 10n + 10_000n }),
  );
  // One the settler cannot pay for is never mined and would hold its nonce: refused here, before it is recorded.
  const cost = request.gas * (request.maxFeePerGas ?? request.gasPrice ?? 0n);
  const balance = await rpc(() => clientOf(config).getBalance({ address: settlerOf(config).address }));
  if (cost > balance) {
    log.error("the x402 settler cannot pay for a settlement's gas; fund it", {
      cost: String(cost),
      balance: String(balance),
    });
    throw new DomainError(
      "UNAVAILABLE",
      "The payments settler cannot pay for the settlement's gas right now; nothing was charged.",
      undefined,
      60,
    );
  }
  const raw = await wallet.signTransaction(request as Parameters<typeof wallet.signTransaction>[0]);
  return { hash: keccak256(raw), raw };
}

/** A replacement pays at least this much more per gas than the transaction it replaces (nodes ask ≥ 10%). */
const feeBump = (fee: bigint | undefined) => (fee === undefined ? undefined : (fee * 5n) / 4n + 1n);

/**
 * A transaction at the same settler nonce as `previous` with a higher fee (fee replacement): the same
 * settlement, or, once its authorization can no longer be settled, a 0-value transfer to the settler itself
 * that fills the nonce so the settlements after it are mined. Fees are the bumped ones or the network's
 * current ones, whichever is higher.
 */
export async function signReplacement(
  config: X402Config,
  previous: SignedSettlement,
  kind: "settlement" | "filler",
): Promise<SignedSettlement> {
  const wallet = settlerWallet(config);
  const old = parseTransaction(previous.raw);
  const current = await rpc(() =>
    wallet.prepareTransactionRequest({ to: settlerOf(config).address, value: 0n, gas: 21_000n, nonce: old.nonce }),
  );
  const higher = (a: bigint | undefined, b: bigint | undefined) =>
    a === undefined ? b : b === undefined || a > b ? a : b;
  const fees =
    old.maxFeePerGas !== undefined
      ? {
          maxFeePerGas: higher(feeBump(old.maxFeePerGas), current.maxFeePerGas),
          maxPriorityFeePerGas: higher(feeBump(old.maxPriorityFeePerGas), current.maxPriorityFeePerGas),
        }
      : { gasPrice: higher(feeBump(old.gasPrice), current.gasPrice) };
  const body =
    kind === "settlement"
      ? { to: old.to, data: old.data, gas: old.gas, value: 0n }
      : { to: settlerOf(config).address, data: undefined, gas: 21_000n, value: 0n };
  const raw = await wallet.signTransaction({
    ...(current as object),
    ...body,
    ...fees,
    nonce: old.nonce,
  } as Parameters<typeof wallet.signTransaction>[0]);
  return { hash: keccak256(raw), raw };
}

/**
 * The settlement's authorization's validBefore (seconds), read from its own calldata; 0 for a filler (no
 * calldata), so a filler that is not mined is replaced by a filler again.
 */
export function validBeforeOf(raw: Hex): bigint {
  const { data } = parseTransaction(raw);
  if (!data || data === "0x") return 0n;
  const { args } = decodeFunctionData({ abi: eip3009Abi, data });
  return args[4] as bigint;
}

/**
 * The settlement's authorization's validAfter (seconds), read from its own calldata; undefined for a filler. A use of
 * the authorization is in a block whose timestamp is after it (EIP-3009), by the chain's own clock.
 */
export function validAfterOf(raw: Hex): bigint | undefined {
  const { data } = parseTransaction(raw);
  if (!data || data === "0x") return undefined;
  const { args } = decodeFunctionData({ abi: eip3009Abi, data });
  return args[3] as bigint;
}

/** Where a transaction was included (with status 1). */
export type Inclusion = Pick<TransactionReceipt, "transactionHash" | "blockNumber" | "blockHash">;

/** An authorization's use: the transaction, and its AuthorizationUsed log's index in the block. */
export type AuthorizationUse = Inclusion & { logIndex: number };

/** A token log of the block, as far as an authorization's use is concerned. */
export type TokenLog = { transactionHash: string; logIndex: number } & (
  | { kind: "used"; authorizer: Address; nonce: Hex }
  | { kind: "transfer"; from: Address; to: Address; value: bigint }
  | { kind: "other" }
);

function decodeTokenLog(log: Log): TokenLog | undefined {
  if (log.removed || !log.transactionHash || log.logIndex === null) return undefined;
  const where = { transactionHash: log.transactionHash.toLowerCase(), logIndex: log.logIndex };
  try {
    const event = decodeEventLog({ abi: tokenEvents, topics: log.topics, data: log.data });
    if (event.eventName === "AuthorizationUsed")
      return { ...where, kind: "used", authorizer: event.args.authorizer, nonce: event.args.nonce };
    if (event.eventName === "Transfer")
      return { ...where, kind: "transfer", from: event.args.from, to: event.args.to, value: event.args.value };
  } catch {
    // Another event of the token's (Approval, …): a log all the same, which counts for adjacency.
  }
  return { ...where, kind: "other" };
}

type TransferLog = Extract<TokenLog, { kind: "transfer" }>;

/**
 * Whether the use at `useIndex` (an AuthorizationUsed log among `logs`, its transaction's token logs) made a
 * transfer that `paid` accepts. EIP-3009 emits a use's AuthorizationUsed and Transfer logs side by side, in the
 * order the token's code fixes (`side`: USDC emits the Transfer after), so the use's transfer is its neighbour on
 * that side, whatever else the transaction holds: another use's transfer, or a plain transfer from the payer
 * (anyone's 0-value transferFrom of the payer's tokens succeeds with no allowance) on the other side says nothing.
 * With the side set right, every use in the transaction has its authorizer's Transfer there (the token emits the
 * pair in one call, nothing between them), and that neighbour decides: true or false. When some use lacks it, the
 * setting may be wrong (X402_TRANSFER_LOG, logged): then the answer is undefined (left settling, looked at again)
 * when our neighbour does not pay but the other side's does, so that a wrong side never refuses for good a payment
 * whose money moved (a relayer's batch of one payer's uses); false when neither side pays. A rival batched beside
 * another use that paid the treasury is refused, not left settling: both uses have their Transfers on the side.
 */
export function paidByUse(
  logs: TokenLog[],
  useIndex: number,
  side: "after" | "before",
  paid: (transfer: TransferLog) => boolean,
): boolean | undefined {
  // By index, once: a relayer's batch can hold thousands of uses, each looked at beside its neighbour.
  const byIndex = new Map(logs.map((log) => [log.logIndex, log]));
  const use = byIndex.get(useIndex);
  if (use?.kind !== "used") return undefined;
  const transferOf = (authorizer: Address, index: number) => {
    const transfer = byIndex.get(index);
    return transfer?.kind === "transfer" && sameAddress(transfer.from, authorizer) ? transfer : undefined;
  };
  const payersAt = (index: number) => transferOf(use.authorizer, index);
  const step = side === "after" ? 1 : -1;
  const own = payersAt(useIndex + step);
  if (own && paid(own)) return true;
  // Every use of the transaction with its authorizer's Transfer on the side: the side is the token's.
  const sideHolds = logs.every(
    (log) => log.kind !== "used" || transferOf(log.authorizer, log.logIndex + step) !== undefined,
  );
  if (sideHolds) return false;
  const where = { txHash: use.transactionHash, logIndex: useIndex, X402_TRANSFER_LOG: side };
  const opposite = payersAt(useIndex - step);
  if (opposite && paid(opposite)) {
    log.error(
      "an x402 authorization's use is paid only by the Transfer on the side X402_TRANSFER_LOG does not say",
      where,
    );
    return undefined;
  }
  if (own) return false;
  log.error(
    "an x402 authorization's use has no Transfer log of its payer's beside it where X402_TRANSFER_LOG says",
    where,
  );
  return undefined;
}

/**
 * Whether the use of an authorization (`from`, `nonce`) moved `value` from `from` to the treasury: its own
 * transfer (see paidByUse) is of exactly `value`, from `from` to the treasury. EIP-3009 lets a payer sign several
 * authorizations with one nonce (another `to`, another `value`): the AuthorizationUsed log alone does not say which
 * one was used. Read from the block's token logs by the block's hash (never the receipt: a node may answer for a
 * hash another, later execution), the payer's AuthorizationUsed and Transfer logs in one call. Undefined when the AuthorizationUsed log itself is not
 * among them: a node behind a load balancer that has not seen the block yet answers [] (not an error), which
 * says nothing about the payment; or when no Transfer of the payer's stands beside it on the token's side.
 */
export async function movedToTreasury(
  config: X402Config,
  use: AuthorizationUse,
  from: Address,
  nonce: Hex,
  value: bigint,
): Promise<boolean | undefined> {
  // Our own settlements show the token's side: one that contradicts X402_TRANSFER_LOG judges nothing (logged there).
  if ((await transferLogState(config)) === "contradicted") return undefined;
  // Only the payer's uses and transfers (topic 1 is `authorizer` in one, `from` in the other): a block packed
  // with the token's logs (anyone can emit them) must not make a query the RPC refuses every time. Adjacency goes
  // by logIndex, so the logs left out never make two logs neighbours.
  const topics = [[toEventSelector(tokenEvents[0]), toEventSelector(tokenEvents[1])], pad(from.toLowerCase() as Hex)];
  const found = await rpc(() =>
    clientOf(config).request({
      method: "eth_getLogs",
      params: [{ address: config.tokenAddress, blockHash: use.blockHash, topics }],
    }),
  );
  const raw = (found as RpcLog[]).map((log) => formatLog(log));
  const txHash = use.transactionHash.toLowerCase();
  const logs = raw.map(decodeTokenLog).filter((log) => log?.transactionHash === txHash) as TokenLog[];
  const own = logs.find((log) => log.logIndex === use.logIndex);
  if (
    !own ||
    own.kind !== "used" ||
    !sameAddress(own.authorizer, from) ||
    own.nonce.toLowerCase() !== nonce.toLowerCase()
  )
    return undefined;
  return paidByUse(
    logs,
    use.logIndex,
    config.transferLog,
    (transfer) =>
      sameAddress(transfer.from, from) && sameAddress(transfer.to, config.treasuryAddress) && transfer.value === value,
  );
}

/**
 * The side of its AuthorizationUsed log on which our own successful settlement's Transfer of `value` from the payer
 * to the treasury stands, recorded for transferLogHealth (see ./transfer-log-side.ts); nothing when its logs do not
 * show one side alone. Never throws: it is a check beside the money path, not on it.
 */
export function checkTransferLogSide(
  config: X402Config,
  receipt: Pick<TransactionReceipt, "logs" | "transactionHash" | "status">,
  authorization: { from: Address; nonce: Hex; value: bigint },
): void {
  try {
    if (receipt.status !== "success") return;
    const logs = receipt.logs
      .filter((log) => sameAddress(log.address, config.tokenAddress))
      .map(decodeTokenLog)
      .filter((log) => log !== undefined);
    const byIndex = new Map(logs.map((log) => [log.logIndex, log]));
    const use = logs.find(
      (log) =>
        log.kind === "used" &&
        sameAddress(log.authorizer, authorization.from) &&
        log.nonce.toLowerCase() === authorization.nonce.toLowerCase(),
    );
    if (!use) return;
    const pays = (index: number) => {
      const transfer = byIndex.get(index);
      return (
        transfer?.kind === "transfer" &&
        sameAddress(transfer.from, authorization.from) &&
        sameAddress(transfer.to, config.treasuryAddress) &&
        transfer.value === authorization.value
      );
    };
    const after = pays(use.logIndex + 1);
    const before = pays(use.logIndex - 1);
    if (after !== before) recordTransferLogSide(config, after ? "after" : "before", receipt.transactionHash);
  } catch (error) {
    log.warn("an x402 settlement's logs could not be read for the Transfer log's side", {
      txHash: receipt.transactionHash,
      err: error instanceof Error ? error.message : String(error),
    });
  }
}

/**
 * Where the transaction that used the authorization is (`from`, `nonce`), found by the token's
 * AuthorizationUsed log; "canceled" when the payer canceled it instead (its AuthorizationCanceled log); undefined
 * when neither is found. Looked for back from `upTo` (the block where our settlement reverted or its nonce was
 * filled) down to `floor` (the first block of the payment's settlement: it was unused then, see searchFloor), then,
 * if not there, back from the head down to just above `upTo`: our settlement can revert for another reason than
 * the nonce's use (the payer's balance, a paused token) while the authorization stays valid, and anyone may submit
 * it after. With no `upTo`, back from the head down to `floor`. Every block from the floor up is looked at, however
 * long ago the payment was: a search that stopped short would leave a used authorization unfound for good.
 */
export async function findAuthorizationUse(
  config: X402Config,
  from: Address,
  nonce: Hex,
  floor: bigint,
  upTo?: bigint,
): Promise<AuthorizationUse | "canceled" | undefined> {
  const search = { config, from, nonce };
  const before = upTo === undefined ? undefined : await searchDown(search, upTo, floor);
  if (before) return before;
  const head = await rpc(() => clientOf(config).getBlockNumber({ cacheTime: 0 }));
  const above = upTo === undefined || upTo < floor ? floor : upTo + 1n;
  return searchDown(search, head, above);
}

/**
 * The first block whose timestamp is at or after `seconds` (the head when none is), by binary search on block
 * timestamps (which never go back along the chain): about log2(head) block reads, once per payment (its caller
 * keeps the answer on the row).
 */
export async function firstBlockAtOrAfter(config: X402Config, seconds: bigint, head: bigint): Promise<bigint> {
  let low = 0n;
  let high = head;
  while (low < high) {
    const middle = (low + high) / 2n;
    if ((await readBlockTime(config, middle)) >= seconds) high = middle;
    else low = middle + 1n;
  }
  return low;
}

interface UseSearch {
  config: X402Config;
  from: Address;
  nonce: Hex;
}

/** The use (or cancellation) in blocks `top` down to `floor`, PAYMENTS_SCAN_BLOCKS at a time. */
async function searchDown(
  { config, from, nonce }: UseSearch,
  top: bigint,
  floor: bigint,
): Promise<AuthorizationUse | "canceled" | undefined> {
  const client = clientOf(config);
  for (let to = top; to >= floor;) {
    const fromBlock = to - floor >= config.scanBlocks ? to - config.scanBlocks + 1n : floor;
    const logs = await rpc(() =>
      client.getLogs({
        address: config.tokenAddress,
        event: authorizationUsedEvent,
        args: { authorizer: from, nonce },
        fromBlock,
        toBlock: to,
      }),
    );
    // The log itself says where the transfer is (a log exists only in a transaction that succeeded); its receipt
    // is not read: a node may answer for its hash another, later execution (ganache re-mines a re-sent one).
    const used = logs.find(
      (log) =>
        !log.removed && log.transactionHash && log.blockHash && log.blockNumber !== null && log.logIndex !== null,
    );
    if (used)
      return {
        transactionHash: used.transactionHash as Hash,
        blockNumber: used.blockNumber as bigint,
        blockHash: used.blockHash as Hash,
        logIndex: used.logIndex as number,
      };
    // Not used but canceled (EIP-3009's cancelAuthorization, after our simulation): marked used, nothing moved.
    const canceled = await rpc(() =>
      client.getLogs({
        address: config.tokenAddress,
        event: canceledEvent,
        args: { authorizer: from, nonce },
        fromBlock,
        toBlock: to,
      }),
    );
    if (canceled.some((log) => !log.removed)) return "canceled";
    to = fromBlock - 1n;
  }
  return undefined;
}

/** Block `blockNumber`'s timestamp (seconds); a node that lacks the block errs. */
export const readBlockTime = async (config: X402Config, blockNumber: bigint): Promise<bigint> =>
  (await rpc(() => clientOf(config).getBlock({ blockNumber }))).timestamp;

/** The latest block's timestamp (seconds): the chain's own clock, which decides whether an authorization can still be mined. */
export const readLatestBlockTime = async (config: X402Config): Promise<bigint> =>
  (await rpc(() => clientOf(config).getBlock({ blockTag: "latest" }))).timestamp;

/** The settler's nonce as mined at `blockNumber`: the lowest settlement nonce not included up to that block. */
export const readSettlerMinedNonce = (config: X402Config, blockNumber: bigint): Promise<number> =>
  rpc(() => clientOf(config).getTransactionCount({ address: settlerOf(config).address, blockNumber }));

/** The receipt of `hash`, or null while it is not included. */
export const readReceipt = (config: X402Config, hash: Hash): Promise<TransactionReceipt | null> =>
  rpc(() => clientOf(config).getTransactionReceipt({ hash })).catch((error: unknown) => {
    if (error instanceof TransactionReceiptNotFoundError || error instanceof TransactionNotFoundError) return null;
    throw error;
  });

/** Sends a signed settlement; sending one the node already holds again is not an error. */
export async function broadcast(config: X402Config, signed: SignedSettlement): Promise<void> {
  try {
    await rpc(() => clientOf(config).sendRawTransaction({ serializedTransaction: signed.raw }));
  } catch (error) {
    if (/already known|known transaction/i.test(String((error as Error).cause ?? error))) return;
    throw error;
  }
}

export type SettlementOutcome = { state: "included"; receipt: TransactionReceipt } | { state: "timeout" };

/**
 * Waits for the settlement's receipt up to `timeoutMs`; a transaction the node forgot is sent again once. Only the
 * receipt of `signed.hash` itself: viem's default follows a transaction that replaces it (same sender and nonce)
 * and resolves with the replacement's receipt, which may be the sweep's filler (status 1, nothing moved).
 */
export async function waitForSettlement(
  config: X402Config,
  signed: SignedSettlement,
  timeoutMs: number,
): Promise<SettlementOutcome> {
  const client = clientOf(config);
  const wait = () =>
    client.waitForTransactionReceipt({
      hash: signed.hash,
      timeout: timeoutMs / 2,
      pollingInterval: 100,
      retryCount: 0,
      checkReplacement: false,
    });
  for (let round = 0; round < 2; round++) {
    try {
      return { state: "included", receipt: await wait() };
    } catch (error) {
      if (!(error instanceof WaitForTransactionReceiptTimeoutError)) return rpc(() => Promise.reject(error));
    }
    // Dropped from the node's pool (restarted, evicted): the same signed transaction again, same nonce.
    const known = await rpc(() => client.getTransaction({ hash: signed.hash })).catch((error: unknown) => {
      if (error instanceof TransactionNotFoundError || error instanceof TransactionReceiptNotFoundError) return null;
      throw error;
    });
    if (!known) await broadcast(config, signed);
  }
  return { state: "timeout" };
}
