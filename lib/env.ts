// Configuration, parsed once from process.env. Nothing else in the app reads process.env.
import { getAddress } from "viem";
import { z } from "zod";

const intFromEnv = (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback);

const booleanFromEnv = z
  .enum(["true", "false", "1", "0"])
  .default("false")
  .transform((value) => value === "true" || value === "1");

/** A comma-separated list of absolute http(s) URLs, reduced to their origins. */
const originList = z.string().transform((value, ctx) => {
  const origins: string[] = [];
  for (const part of value
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const url = URL.canParse(part) ? new URL(part) : undefined;
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
      ctx.addIssue({ code: "custom", message: `APP_ORIGIN: "${part}" is not an http(s) URL` });
      return z.NEVER;
    }
    origins.push(url.origin);
  }
  if (origins.length === 0) {
    ctx.addIssue({ code: "custom", message: "APP_ORIGIN names no origin" });
    return z.NEVER;
  }
  return origins;
});

const evmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "expected a 0x address of 40 hexadecimal digits");

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: intFromEnv(3000, 0),
  /** Embedded database directory; `memory://` keeps it in memory (tests). */
  DATA_DIR: z.string().min(1).default("./.data"),
  DATABASE_URL: z.string().url().optional(),
  /** A PGlite data-dir dump (from dumpDataDir) that a fresh in-memory database starts from (tests). */
  EMBEDDED_DB_TEMPLATE: z.string().optional(),
  /**
   * Rebuild every shaped statement on each call and refuse a text its shape does not name
   * (lib/db/prepared-statements.ts). Default: on when NODE_ENV is test.
   */
  CHECK_STATEMENT_SHAPES: z
    .enum(["true", "false", "1", "0"])
    .optional()
    .transform((value) => (value === undefined ? undefined : value === "true" || value === "1")),
  SESSION_SECRET: z.string().min(32, "SESSION_SECRET must be at least 32 characters").optional(),
  /**
   * The private key (32 bytes, hex) that signs execution receipts (CONTRACT §13). Unset: one is generated once and
   * kept in the database, sealed under SESSION_SECRET. Changing it moves the old address to the signers' `previous`.
   */
  RECEIPT_SIGNING_KEY: z
    .string()
    .trim()
    .regex(/^(0x)?[0-9a-fA-F]{64}$/, "RECEIPT_SIGNING_KEY must be 32 bytes of hexadecimal (64 digits, 0x optional)")
    .transform((key) => `0x${key.replace(/^0x/, "").toLowerCase()}` as `0x${string}`)
    .optional(),
  /**
   * The app's own origins (comma-separated), the only ones sign-in messages and cookie mutations may name.
   * Default: http://localhost:PORT and http://127.0.0.1:PORT. Never derived from request headers.
   */
  APP_ORIGIN: originList.optional(),
  /** Trust X-Forwarded-For from a reverse proxy in front of the app (only for the client address). */
  TRUST_PROXY: booleanFromEnv,
  /** Chain ids a sign-in message may name (comma-separated). */
  SIWE_CHAIN_IDS: z
    .string()
    .default("1")
    .transform((value, ctx) => {
      const ids = value.split(",").map((part) => Number(part.trim()));
      if (ids.some((id) => !Number.isSafeInteger(id) || id <= 0)) {
        ctx.addIssue({ code: "custom", message: "SIWE_CHAIN_IDS must be positive integers separated by commas" });
        return z.NEVER;
      }
      return ids;
    }),
  /** Where the dashboard calls the execution API (its Run). Default: this app itself on PORT. */
  EXECUTION_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  STARTER_CREDITS: intFromEnv(100),
  LLM_BASE_URL: z.string().url().optional(),
  LLM_API_KEY: z.string().optional(),
  LLM_MODEL: z.string().default("gpt-4o-mini"),
  /** Optional JSON-RPC URL used to verify smart-contract wallet (EIP-1271/6492) signatures. */
  SIWE_RPC_URL: z.string().url().optional(),
  EMBEDDED_NODES: intFromEnv(1),
  /**
   * An embedded node's slots mostly wait: on its claim and its report, each a round trip through the database and
   * the server's busy event loop (CPU-bound providers queue for the worker pool whatever the slots). With 4, a
   * burst's jobs queued behind those waits; 8 drained them 6–69 % faster (docs/benchmarks.md, 2026-11-26).
   */
  EMBEDDED_NODE_CONCURRENCY: intFromEnv(8, 1),
  ROUTING_TIMEOUT_MS: intFromEnv(30_000, 1),
  NODE_LEASE_MS: intFromEnv(15_000, 100),
  /** The share of a service's price a job on the developer's own node costs (CONTRACT §12): 0 = the network only routes. */
  OWN_NODE_CREDIT_SHARE: z.coerce.number().min(0).max(1).default(0),
  JOB_MAX_ATTEMPTS: intFromEnv(3, 1),
  RETRY_BASE_DELAY_MS: intFromEnv(1_000, 0),
  JOB_TIMEOUT_MS: intFromEnv(120_000, 100),
  SWEEP_INTERVAL_MS: intFromEnv(500, 10),
  IDEMPOTENCY_TTL_HOURS: intFromEnv(24, 24),
  /**
   * Days a final job's events and log lines are kept after it ended (lib/engine/retention.ts); unset: kept for
   * ever. The job rows, the ledger and the usage rollups are always kept.
   */
  JOB_RETENTION_DAYS: z.coerce.number().int().min(1).optional(),
  RATE_LIMIT_PER_MINUTE: intFromEnv(600, 0),
  /** Hosts webhook URLs may name although they resolve to private addresses, and reach over http: (dev, tests). */
  WEBHOOK_ALLOWED_HOSTS: z
    .string()
    .default("")
    .transform((value) =>
      value
        .split(",")
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    ),
  /** Delays between webhook attempts (comma-separated ms); the last one repeats until the retry window ends. */
  WEBHOOK_RETRY_SCHEDULE_MS: z
    .string()
    .default("5000,30000,120000,600000,1800000,3600000,7200000")
    .transform((value, ctx) => {
      const delays = value.split(",").map((part) => Number(part.trim()));
      if (delays.length === 0 || delays.some((d) => !Number.isSafeInteger(d) || d < 0)) {
        ctx.addIssue({
          code: "custom",
          message: "WEBHOOK_RETRY_SCHEDULE_MS must be whole milliseconds separated by commas",
        });
        return z.NEVER;
      }
      return delays;
    }),
  /** How long a delivery is retried before it is failed (default 24 h). */
  WEBHOOK_RETRY_WINDOW_MS: intFromEnv(24 * 3600_000, 0),
  /** An endpoint whose deliveries all failed for this long is disabled (default 72 h). */
  WEBHOOK_DISABLE_AFTER_MS: intFromEnv(72 * 3600_000, 0),
  /** One attempt's time limit: connect, send, and the answer's status. */
  WEBHOOK_TIMEOUT_MS: intFromEnv(10_000, 1),
  /** Attempts in flight per server instance. */
  WEBHOOK_CONCURRENCY: intFromEnv(32, 1),
  SIGN_IN_RATE_PER_MINUTE: intFromEnv(60, 0),
  ACCOUNT_RATE_PER_MINUTE: intFromEnv(1200, 0),
  /** Node-protocol requests per minute per developer's node (CONTRACT §12); 0 disables. */
  NODE_RATE_PER_MINUTE: intFromEnv(1200, 0),
  /** The bearer token of GET /api/metrics (CONTRACT §14); unset, the route answers 404. */
  METRICS_TOKEN: z.string().min(16, "METRICS_TOKEN must be at least 16 characters").optional(),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  // Credit top-ups paid in an ERC-20 (CONTRACT §10): enabled when the first five are all set.
  PAYMENTS_RPC_URL: z.url({ protocol: /^https?$/ }).optional(),
  PAYMENTS_CHAIN_ID: z.coerce.number().int().positive().optional(),
  /**
   * Checksummed once here: the token's address is part of an x402 authorization's unique key, so instances
   * configured with another letter case must key it alike (else both could reserve and settle it).
   */
  PAYMENTS_TOKEN_ADDRESS: evmAddress.transform((address) => getAddress(address)).optional(),
  PAYMENTS_TREASURY_ADDRESS: evmAddress.optional(),
  CREDITS_PER_TOKEN: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  /** Blocks on top of the including block before a payment is credited. */
  PAYMENTS_CONFIRMATIONS: intFromEnv(2),
  /** Where the watcher starts scanning on its first start (default: the chain head then). */
  PAYMENTS_START_BLOCK: z.coerce.number().int().min(0).optional(),
  PAYMENTS_EXPLORER_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** How often the watcher scans new blocks and re-checks pending top-ups. */
  PAYMENTS_POLL_MS: intFromEnv(2_000, 10),
  /** The widest block range one eth_getLogs asks for. */
  PAYMENTS_SCAN_BLOCKS: intFromEnv(2_000, 1),
  /** A submitted transaction not mined within this long is failed as DROPPED (default 1 h). */
  PAYMENTS_DROP_AFTER_MS: intFromEnv(3_600_000, 1),
  // Pay per call with x402 (CONTRACT §15): on when the payments above are and this key is set.
  /** The private key (32 bytes, hex) of the gas-funded address that sends x402 settlements; it receives nothing. */
  PAYMENTS_SETTLER_KEY: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, "expected a 0x private key of 64 hexadecimal digits")
    .optional(),
  /** Below this many wei of ETH the settler shows as low in /api/health (default 0.01 ETH). */
  PAYMENTS_SETTLER_MIN_WEI: z
    .string()
    .regex(/^[0-9]{1,30}$/, "expected a whole number of wei")
    .default("10000000000000000")
    .transform((value) => BigInt(value)),
  /** How long a call waits for its settlement (default 2 min); then the settlement sweep takes it over (replaced when stuck). */
  PAYMENTS_SETTLEMENT_TIMEOUT_MS: intFromEnv(120_000, 100),
  /** Paid calls per minute per client address, and per payer once the signature is proven theirs (before any RPC call); 0 disables. */
  X402_RATE_PER_MINUTE: intFromEnv(60, 0),
  /**
   * Where the token emits an EIP-3009 use's Transfer log: right after its AuthorizationUsed log (USDC, EURC and
   * their family) or right before it. A fixed property of the token's code, never guessed from a transaction.
   */
  X402_TRANSFER_LOG: z.enum(["after", "before"]).default("after"),
  // WalletConnect on sign-in (a QR code for a phone wallet): offered only when a project id is set. The names are
  // NEXT_PUBLIC_ as WalletConnect's own docs spell them, but the sign-in page reads them here at run time and
  // hands them to the browser, so changing them needs a restart, not a rebuild.
  NEXT_PUBLIC_WALLETCONNECT_PROJECT_ID: z.string().trim().min(1).optional(),
  /** The relay the browser and the phone meet at (default: WalletConnect's own); for self-hosting and tests. */
  NEXT_PUBLIC_WALLETCONNECT_RELAY_URL: z.url({ protocol: /^wss?$/ }).optional(),
});

/** Every variable the server reads: README.md's configuration tables have a row for each (lib/env.test.ts). */
export const envVariables = Object.keys(envSchema.shape);

const paymentVariables = [
  "PAYMENTS_RPC_URL",
  "PAYMENTS_CHAIN_ID",
  "PAYMENTS_TOKEN_ADDRESS",
  "PAYMENTS_TREASURY_ADDRESS",
  "CREDITS_PER_TOKEN",
] as const;

/** Top-ups need every one of the payment variables: a partial set is a configuration error, not "disabled". */
const completePayments = envSchema.superRefine((config, ctx) => {
  const missing = paymentVariables.filter((name) => config[name] === undefined);
  if (missing.length > 0 && missing.length < paymentVariables.length) {
    for (const name of missing)
      ctx.addIssue({
        code: "custom",
        path: [name],
        message: "required when any payment variable is set (credit top-ups need all five)",
      });
  }
});

export type Env = z.infer<typeof envSchema>;

function emptyToUndefined(source: Record<string, string | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(source).map(([k, v]) => [k, v === "" ? undefined : v]));
}

export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  const parsed = completePayments.safeParse(emptyToUndefined(source));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n");
    throw new Error(`Invalid configuration:\n${lines}`);
  }
  return parsed.data;
}

let cached: Env | undefined;

/** The configuration of this process (parsed lazily so tests can set variables before first use). */
export function env(): Env {
  cached ??= parseEnv();
  return cached;
}

/** Whether this process is `next build` (or one of its workers): it may not open databases or start services. */
export const isBuildPhase = (): boolean => process.env.NEXT_PHASE === "phase-production-build";

/** Whether an OpenAPI-compatible LLM endpoint is configured (the services that need one are enabled). */
export const llmConfigured = (config: Env = env()): boolean => Boolean(config.LLM_BASE_URL);

/** The origins this app answers as (APP_ORIGIN, or the local defaults on PORT): configuration only. */
export function appOrigins(config: Env = env()): string[] {
  return config.APP_ORIGIN ?? [`http://localhost:${config.PORT}`, `http://127.0.0.1:${config.PORT}`];
}

export interface PaymentsConfig {
  rpcUrl: string;
  chainId: number;
  tokenAddress: `0x${string}`;
  treasuryAddress: `0x${string}`;
  creditsPerToken: bigint;
  confirmations: number;
  startBlock: bigint | undefined;
  explorerUrl: string | undefined;
  pollMs: number;
  scanBlocks: bigint;
  dropAfterMs: number;
}

/** Pay per call (CONTRACT §15): the top-up configuration plus the settler. */
export interface X402Config extends PaymentsConfig {
  settlerKey: `0x${string}`;
  settlerMinWei: bigint;
  settlementTimeoutMs: number;
  /** The side of its AuthorizationUsed log on which the token emits a use's Transfer log. */
  transferLog: "after" | "before";
}

/** The x402 configuration, or undefined when pay per call is off (no payments, or no settler key). */
export function x402Config(config: Env = env()): X402Config | undefined {
  const payments = paymentsConfig(config);
  if (!payments || !config.PAYMENTS_SETTLER_KEY) return undefined;
  return {
    ...payments,
    settlerKey: config.PAYMENTS_SETTLER_KEY as `0x${string}`,
    settlerMinWei: config.PAYMENTS_SETTLER_MIN_WEI,
    settlementTimeoutMs: config.PAYMENTS_SETTLEMENT_TIMEOUT_MS,
    transferLog: config.X402_TRANSFER_LOG,
  };
}

/** The top-up configuration, or undefined when top-ups are not enabled on this deployment. */
export function paymentsConfig(config: Env = env()): PaymentsConfig | undefined {
  const {
    PAYMENTS_RPC_URL: rpcUrl,
    PAYMENTS_CHAIN_ID: chainId,
    PAYMENTS_TOKEN_ADDRESS: token,
    PAYMENTS_TREASURY_ADDRESS: treasury,
  } = config;
  if (!rpcUrl || !chainId || !token || !treasury || !config.CREDITS_PER_TOKEN) return undefined;
  return {
    rpcUrl,
    chainId,
    tokenAddress: token as `0x${string}`,
    treasuryAddress: treasury as `0x${string}`,
    creditsPerToken: BigInt(config.CREDITS_PER_TOKEN),
    confirmations: config.PAYMENTS_CONFIRMATIONS,
    startBlock: config.PAYMENTS_START_BLOCK === undefined ? undefined : BigInt(config.PAYMENTS_START_BLOCK),
    explorerUrl: config.PAYMENTS_EXPLORER_URL,
    pollMs: config.PAYMENTS_POLL_MS,
    scanBlocks: BigInt(config.PAYMENTS_SCAN_BLOCKS),
    dropAfterMs: config.PAYMENTS_DROP_AFTER_MS,
  };
}

/** Chains a sign-in message may name: SIWE_CHAIN_IDS, and the payments chain (a wallet switched to it to pay may sign in there). */
export function signInChainIds(config: Env = env()): number[] {
  return config.PAYMENTS_CHAIN_ID && !config.SIWE_CHAIN_IDS.includes(config.PAYMENTS_CHAIN_ID)
    ? [...config.SIWE_CHAIN_IDS, config.PAYMENTS_CHAIN_ID]
    : config.SIWE_CHAIN_IDS;
}

/** The execution API the dashboard's server calls: EXECUTION_API_URL, or this app itself. */
export function executionApiUrl(config: Env = env()): string {
  return config.EXECUTION_API_URL ?? `http://127.0.0.1:${config.PORT}`;
}

/** What the sign-in page needs to offer WalletConnect, or undefined when no project id is configured. */
export interface WalletConnectSettings {
  projectId: string;
  /** A self-hosted relay; undefined means WalletConnect's own. */
  relayUrl?: string;
}

export function walletConnectSettings(config: Env = env()): WalletConnectSettings | undefined {
  const projectId = config.NEXT_PUBLIC_WALLETCONNECT_PROJECT_ID;
  if (!projectId) return undefined;
  const relayUrl = config.NEXT_PUBLIC_WALLETCONNECT_RELAY_URL;
  return relayUrl ? { projectId, relayUrl } : { projectId };
}
