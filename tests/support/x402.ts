// What the pay-per-call (x402, CONTRACT §15) tests share: ganache with the solc-compiled EIP-3009 token behind an
// RPC relay the tests can fault, a funded settler, a test server configured for x402 (one per test file), and the
// payer's side: the official client's payment, a hand-made authorization, balances and PAYMENT-RESPONSE.
import { x402Client } from "@x402/fetch";
import { ExactEvmScheme, authorizationTypes } from "@x402/evm";
import { decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { createRequire } from "node:module";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import {
  createWalletClient,
  encodeFunctionData,
  http,
  parseAbi,
  parseSignature,
  toHex,
  type Abi,
  type Address,
  type Hex,
} from "viem";
import { eip3009Abi } from "@/lib/payments/x402/chain";
import { startLocalChain, testTokenAbi, type LocalChain } from "./chain";
import { startRpcProxy, type RpcProxy } from "./rpc-proxy";
import { startTestServer, type TestServer } from "./test-server";

/** token-count costs 1 credit: ceil(1 × 10^6 / CREDITS_PER_TOKEN 100) base units of the 6-decimal token. */
export const price = 10_000n;

export interface X402World {
  chain: LocalChain;
  /** The relay the server reads and settles through (the tests' fault points). */
  rpc: RpcProxy;
  server: TestServer;
  network: `eip155:${number}`;
  settler: Address;
  close(): Promise<void>;
}

/** The chain, the relay, a funded settler and the server, with `env` over the x402 configuration. */
export async function startX402(env: Record<string, string> = {}): Promise<X402World> {
  const chain = await startLocalChain({ token: "eip3009" });
  const rpc = await startRpcProxy(chain.rpcUrl);
  const settlerKey = generatePrivateKey();
  const settler = privateKeyToAccount(settlerKey).address;
  await chain.fund(settler, { eth: 10n ** 18n });
  const server = await startTestServer({
    env: {
      PAYMENTS_RPC_URL: rpc.url,
      PAYMENTS_CHAIN_ID: String(chain.chainId),
      PAYMENTS_TOKEN_ADDRESS: chain.token,
      PAYMENTS_TREASURY_ADDRESS: chain.treasury,
      CREDITS_PER_TOKEN: "100",
      PAYMENTS_SETTLER_KEY: settlerKey,
      PAYMENTS_POLL_MS: "200",
      SIGN_IN_RATE_PER_MINUTE: "0",
      ...env,
    },
  });
  return {
    chain,
    rpc,
    server,
    network: `eip155:${chain.chainId}`,
    settler,
    close: async () => {
      await server.close();
      await rpc.close();
      await chain.stop();
    },
  };
}

/** What the official client sends for `required`: its PAYMENT-SIGNATURE header. */
export async function officialPayment(
  chain: LocalChain,
  account: PrivateKeyAccount,
  required: PaymentRequired,
): Promise<string> {
  const network = `eip155:${chain.chainId}` as const;
  const client = new x402Client().register(network, new ExactEvmScheme(account));
  client.setSpendControls({ allowedAssets: [{ network, asset: chain.token }] });
  return encodePaymentSignatureHeader(await client.createPaymentPayload(required));
}

export interface AuthorizationTerms {
  /** Default: the signer (someone else's address makes a forgery). */
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  /** Default: a random one (another authorization's nonce makes a rival for it: EIP-3009 allows both signed). */
  nonce: Hex;
  /** Replaces the signature, or transforms the one made (e.g. into ERC-2098's 64 bytes). */
  signature: Hex | ((signed: Hex) => Hex);
}

/** A hand-made authorization signed by `signer` (to break one term at a time), as a PAYMENT-SIGNATURE header. */
export async function signedAuthorization(
  chain: LocalChain,
  signer: PrivateKeyAccount,
  requirement: PaymentRequirements,
  terms: Partial<AuthorizationTerms> = {},
): Promise<string> {
  const message = {
    from: terms.from ?? signer.address,
    to: terms.to ?? (requirement.payTo as Address),
    value: terms.value ?? BigInt(requirement.amount),
    validAfter: terms.validAfter ?? 0n,
    validBefore: terms.validBefore ?? BigInt(Math.floor(Date.now() / 1000)) + 300n,
    nonce: terms.nonce ?? toHex(crypto.getRandomValues(new Uint8Array(32))),
  };
  const signed = await signer.signTypedData({
    domain: {
      name: requirement.extra.name as string,
      version: requirement.extra.version as string,
      chainId: chain.chainId,
      verifyingContract: chain.token,
    },
    types: authorizationTypes,
    primaryType: "TransferWithAuthorization",
    message,
  });
  const { signature } = terms;
  return encodePaymentSignatureHeader({
    x402Version: 2,
    accepted: requirement,
    payload: {
      signature: typeof signature === "function" ? signature(signed) : (signature ?? signed),
      authorization: {
        ...message,
        value: message.value.toString(),
        validAfter: message.validAfter.toString(),
        validBefore: message.validBefore.toString(),
      },
    },
  });
}

export const tokenBalance = (chain: LocalChain, address: Address) =>
  chain.publicClient.readContract({
    address: chain.token,
    abi: testTokenAbi,
    functionName: "balanceOf",
    args: [address],
  });

/** The answer's PAYMENT-RESPONSE, decoded. */
export function paymentResponse(res: Response) {
  return decodePaymentResponseHeader(res.headers.get("payment-response") ?? "") as {
    success: boolean;
    errorReason?: string;
    transaction: string;
    network: string;
    payer?: string;
  };
}

/** What a PAYMENT-SIGNATURE header carries: the authorization (its numbers as strings) and its signature. */
export function paymentPayload(header: string): {
  authorization: { from: Address; to: Address; value: string; validAfter: string; validBefore: string; nonce: Hex };
  signature: Hex;
} {
  return JSON.parse(Buffer.from(header, "base64").toString()).payload;
}

// A multicall a facilitator (or anyone) may use to submit several authorizations in one transaction.
const batchSource = `// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;
contract AuthorizationBatch {
    function submit(address token, bytes[] calldata calls) external {
        for (uint256 i = 0; i < calls.length; i++) {
            (bool ok, ) = token.call(calls[i]);
            require(ok, "AuthorizationBatch: a call reverted");
        }
    }
}`;
let batchContract: { abi: Abi; bytecode: Hex } | undefined;
const batches = new Map<string, Promise<Address>>();

function compileBatch(): { abi: Abi; bytecode: Hex } {
  if (batchContract) return batchContract;
  const solc = createRequire(import.meta.url)("solc") as { compile(input: string): string };
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: "Solidity",
        sources: { "AuthorizationBatch.sol": { content: batchSource } },
        settings: { evmVersion: "paris", outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
      }),
    ),
  );
  const compiled = output.contracts?.["AuthorizationBatch.sol"]?.AuthorizationBatch;
  if (!compiled) throw new Error(`solc: ${JSON.stringify(output.errors)}`);
  batchContract = { abi: compiled.abi, bytecode: `0x${compiled.evm.bytecode.object}` };
  return batchContract;
}

/** The batch contract on `chain` (deployed once per chain): anyone may submit several token calls through it. */
export function authorizationBatch(chain: LocalChain): Promise<Address> {
  let batch = batches.get(chain.rpcUrl);
  if (!batch) {
    batch = (async () => {
      const { abi, bytecode } = compileBatch();
      const deployer = createWalletClient({
        account: await chain.newAccount({ tokens: 0n }),
        transport: http(chain.rpcUrl),
      });
      const deployed = await deployer.deployContract({ chain: null, abi, bytecode });
      const receipt = await chain.publicClient.waitForTransactionReceipt({ hash: deployed });
      if (!receipt.contractAddress) throw new Error("the authorization batch was not deployed");
      return receipt.contractAddress;
    })();
    batches.set(chain.rpcUrl, batch);
  }
  return batch;
}

/** More gas than any call a test batches uses (10k–80k each). */
const gasPerBatchedCall = 150_000n;
/** Ganache's block gas limit: a bound past it is refused, however little the batch uses. */
const blockGasLimit = 30_000_000n;

/**
 * A third party submits the authorizations of these PAYMENT-SIGNATURE headers itself (they are public once
 * sent): one straight to the token's transferWithAuthorization, several in one transaction through the batch
 * contract (authorizationBatch), in the order given. `{ call }` is another call of the token's made by the batch
 * contract in that order (a transferFrom of what a payer approved to it, say). Resolves with the transaction's
 * hash once it is mined.
 */
export async function submitAuthorization(chain: LocalChain, ...items: (string | { call: Hex })[]): Promise<Hex> {
  const submitter = createWalletClient({
    account: await chain.newAccount({ tokens: 0n }),
    transport: http(chain.rpcUrl),
  });
  const calls = items.map((item) => {
    if (typeof item !== "string") return item.call;
    const { authorization: a, signature } = paymentPayload(item);
    const { v, r, s } = parseSignature(signature);
    return encodeFunctionData({
      abi: eip3009Abi,
      functionName: "transferWithAuthorization",
      args: [a.from, a.to, BigInt(a.value), BigInt(a.validAfter), BigInt(a.validBefore), a.nonce, Number(v), r, s],
    });
  });
  const hash =
    calls.length === 1
      ? await submitter.sendTransaction({ chain: null, to: chain.token, data: calls[0] })
      : await submitter.writeContract({
          chain: null,
          address: await authorizationBatch(chain),
          abi: compileBatch().abi,
          functionName: "submit",
          args: [chain.token, calls],
          // Ganache's gas estimate of a long batch re-runs it many times: 120 calls took more than viem's 10 s on
          // a loaded CI machine (the call itself, 1 s). A bound that is surely enough needs no estimate.
          gas: min(gasPerBatchedCall * BigInt(calls.length) + 100_000n, blockGasLimit),
        });
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error(`the third party's submission reverted (${hash})`);
  return hash;
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);

const cancelAbi = parseAbi([
  "function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
]);

/**
 * The payer cancels the authorization of this PAYMENT-SIGNATURE header (EIP-3009's cancelAuthorization, signed by
 * the payer and submitted by a third party): its nonce is used and nothing moves. Resolves once it is mined.
 */
export async function cancelAuthorization(
  chain: LocalChain,
  payer: PrivateKeyAccount,
  header: string,
  requirement: PaymentRequirements,
): Promise<Hex> {
  const { nonce } = paymentPayload(header).authorization;
  const cancel = parseSignature(
    await payer.signTypedData({
      domain: {
        name: requirement.extra.name as string,
        version: requirement.extra.version as string,
        chainId: chain.chainId,
        verifyingContract: chain.token,
      },
      types: {
        CancelAuthorization: [
          { name: "authorizer", type: "address" },
          { name: "nonce", type: "bytes32" },
        ],
      },
      primaryType: "CancelAuthorization",
      message: { authorizer: payer.address, nonce },
    }),
  );
  const submitter = createWalletClient({
    account: await chain.newAccount({ tokens: 0n }),
    transport: http(chain.rpcUrl),
  });
  const hash = await submitter.writeContract({
    chain: null,
    address: chain.token,
    abi: cancelAbi,
    functionName: "cancelAuthorization",
    args: [payer.address, nonce, Number(cancel.v), cancel.r, cancel.s],
  });
  await chain.publicClient.waitForTransactionReceipt({ hash });
  return hash;
}
