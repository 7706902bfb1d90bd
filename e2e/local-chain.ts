// The journeys' payments chain: `npm run chain` started by playwright.config.ts on its own port, whose token
// and treasury addresses are known in advance (a fresh chain, the deployer's first nonce, account 1), and a
// way to fund a test wallet from the test process with the deployer's key.
import {
  createPublicClient,
  createWalletClient,
  getContractAddress,
  http,
  parseEther,
  parseUnits,
  type Address,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { deployerPrivateKey, deterministicAccount1Key, testTokenAbi, testTokenDefaults } from "../tests/support/chain";

export const e2eChainId = 31337;
// Beside E2E_PORT when a run picks its own port (checkouts side by side each start their own chain), else 8546.
export const e2eChainPort = Number(
  process.env.E2E_CHAIN_PORT ?? (process.env.E2E_PORT ? Number(process.env.E2E_PORT) + 1 : 8546),
);
export const e2eChainRpcUrl = `http://127.0.0.1:${e2eChainPort}`;
const deployer = privateKeyToAccount(deployerPrivateKey);
export const e2eToken: Address = getContractAddress({ from: deployer.address, nonce: 0n });
export const e2eTreasury: Address = privateKeyToAccount(deterministicAccount1Key).address;

/** The server's payment configuration for the journeys. */
export const e2ePaymentsEnv = {
  PAYMENTS_RPC_URL: e2eChainRpcUrl,
  PAYMENTS_CHAIN_ID: String(e2eChainId),
  PAYMENTS_TOKEN_ADDRESS: e2eToken,
  PAYMENTS_TREASURY_ADDRESS: e2eTreasury,
  CREDITS_PER_TOKEN: "100",
  PAYMENTS_CONFIRMATIONS: "1",
  PAYMENTS_POLL_MS: "300",
};

/** Gives `address` ETH for gas and `tokens` whole test tokens. */
export async function fundWallet(address: Address, tokens = "100") {
  const chain = {
    id: e2eChainId,
    name: "e2e",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [e2eChainRpcUrl] } },
  };
  const wallet = createWalletClient({ account: deployer, chain, transport: http(e2eChainRpcUrl) });
  const reader = createPublicClient({ chain, transport: http(e2eChainRpcUrl), cacheTime: 0 });
  const gas = await wallet.sendTransaction({ to: address, value: parseEther("1") });
  await reader.waitForTransactionReceipt({ hash: gas, pollingInterval: 100 });
  const minted = await wallet.writeContract({
    address: e2eToken,
    abi: testTokenAbi,
    functionName: "mint",
    args: [address, parseUnits(tokens, testTokenDefaults.decimals)],
  });
  await reader.waitForTransactionReceipt({ hash: minted, pollingInterval: 100 });
}
