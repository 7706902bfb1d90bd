// A local chain for trying credit top-ups by hand: `npm run chain -- 0xYourWallet [--port 8545] [--tokens 1000]
// [--credits-per-token 100] [--confirmations 1] [--block-time 2]`. Starts ganache, deploys the test token, funds
// the wallet and prints the server's environment and what to add to a browser wallet; runs until Ctrl-C.
import { formatUnits, getAddress, isAddress, parseEther, parseUnits } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { deterministicAccount1Key, startLocalChain, testTokenDefaults } from "../tests/support/chain";
import { fail, flag, positional } from "./cli";

const usage =
  "Usage: npm run chain -- <0x wallet address> [--port 8545] [--tokens 1000] [--credits-per-token 100] " +
  "[--confirmations 1] [--block-time 2]";
const chainId = 31337;
const ethForGas = parseEther("10");

function integerFlag(name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const text = flag(name, String(fallback)) ?? "";
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    fail(`--${name} must be an integer from ${min} to ${max}, not "${text}". ${usage}`);
  }
  return value;
}

const [walletArg, ...extra] = positional();
if (!walletArg) fail(`Missing the wallet address to fund. ${usage}`);
// isAddress checks the checksum of a mixed-case address, so a mistyped character is caught here.
if (!isAddress(walletArg))
  fail(`"${walletArg}" is not a valid address (0x and 40 hex digits, checksum if mixed case). ${usage}`);
if (extra.length > 0) fail(`Unexpected argument "${extra[0]}". ${usage}`);
const wallet = getAddress(walletArg);
const port = integerFlag("port", 8545, 1, 65535);
const creditsPerToken = integerFlag("credits-per-token", 100, 1);
const confirmations = integerFlag("confirmations", 1, 0, 1000);
const blockTime = integerFlag("block-time", 2, 0, 3600);
const tokensText = flag("tokens", "1000") ?? "";
if (!/^\d+(\.\d+)?$/.test(tokensText))
  fail(`--tokens must be a non-negative number of whole tokens, not "${tokensText}". ${usage}`);
const tokens = parseUnits(tokensText, testTokenDefaults.decimals);

async function main() {
  // Account 1 of the deterministic mnemonic, and the token at the deployer's first nonce on a fresh chain: a
  // restart prints the same environment, so the server's configuration can be kept.
  const treasury = privateKeyToAccount(deterministicAccount1Key).address;
  const started = Date.now();
  const chain = await startLocalChain({ port, chainId, treasury }).catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    if (message.includes("EADDRINUSE")) fail(`Port ${port} is already in use: stop what listens there or pass --port.`);
    fail(`The local chain did not start: ${message}`);
  });
  await chain.fund(wallet, { eth: ethForGas, tokens });

  // ganache mines only when a transaction arrives, so on an idle chain a payment would never gain its
  // confirmations; an empty block every few seconds stands in for the rest of the world's traffic.
  const ticker =
    blockTime > 0 ? setInterval(() => void chain.mine().catch(() => undefined), blockTime * 1000) : undefined;
  const stop = () => {
    clearInterval(ticker);
    void chain.stop().finally(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);

  const env = [
    `PAYMENTS_RPC_URL=${chain.rpcUrl}`,
    `PAYMENTS_CHAIN_ID=${chainId}`,
    `PAYMENTS_TOKEN_ADDRESS=${chain.token}`,
    `PAYMENTS_TREASURY_ADDRESS=${chain.treasury}`,
    `CREDITS_PER_TOKEN=${creditsPerToken}`,
    `PAYMENTS_CONFIRMATIONS=${confirmations}`,
    "SIWE_CHAIN_IDS=1,31337",
  ].join(" ");
  const lines = [
    `Local chain ${chainId} running at ${chain.rpcUrl} (ganache, started in ${Date.now() - started} ms).`,
    `  Deployed ${testTokenDefaults.name} (${testTokenDefaults.symbol}, ${testTokenDefaults.decimals} decimals) at ${chain.token}.`,
    `  Funded ${wallet}: ${formatUnits(ethForGas, 18)} ETH for gas (balance set) and ` +
      `${formatUnits(tokens, testTokenDefaults.decimals)} ${testTokenDefaults.symbol} (minted).`,
    `  Treasury (receives payments): ${chain.treasury}.`,
    blockTime > 0
      ? `  Each transaction is mined at once, and an empty block follows every ${blockTime} s so payments gain confirmations.`
      : "  Blocks are mined only when transactions arrive (--block-time 0): confirmations need later transactions.",
    "",
    "Start the server with:",
    "",
    `  ${env} npm start`,
    "",
    "In the browser wallet (e.g. MetaMask):",
    `  1. Add a network manually: RPC URL ${chain.rpcUrl}, chain ID ${chainId}, currency symbol ETH`,
    '     (any name, e.g. "Local test chain"). The dashboard can also ask the wallet to add and switch to it.',
    `  2. Import the token: address ${chain.token}, symbol ${testTokenDefaults.symbol}, decimals ${testTokenDefaults.decimals}.`,
    `  3. Use the account ${wallet}.`,
    "  After restarting the chain, clear the wallet's activity for this network (MetaMask: Settings > Advanced >",
    "  Clear activity tab data): it remembers nonces from the old chain and would send transactions that never mine.",
    "",
    "Press Ctrl-C to stop the chain (its state is in memory and is lost).",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

main().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));
