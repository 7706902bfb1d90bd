// End-to-end journeys against the real app: built (only when the sources changed), started on a fixed port
// with a fresh embedded database, driven in Debian's Chromium.
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { e2eNodeSlots } from "./e2e/embedded-node";
import { e2eChainPort, e2ePaymentsEnv, e2eTreasury } from "./e2e/local-chain";
import { e2eWalletConnectEnv } from "./e2e/walletconnect-relay";

// E2E_PORT lets several checkouts run their journeys side by side: the payments chain and the WalletConnect
// relay then listen on the two ports above it (e2e/local-chain.ts, e2e/walletconnect-relay.ts), not on their
// fixed defaults (8546, 8547), so two runs never meet on a port.
const port = Number(process.env.E2E_PORT ?? 3123);
const baseURL = `http://127.0.0.1:${port}`;
// Each run gets a database no other run has seen. The config is evaluated again in every worker; only the
// main process (no TEST_WORKER_INDEX) starts the server, and it first clears what earlier runs left behind
// (one run at a time in a checkout).
const dataRoot = path.resolve(".data-e2e");
if (!process.env.TEST_WORKER_INDEX) rmSync(dataRoot, { recursive: true, force: true });
const dataDir = path.join(dataRoot, randomUUID());

export default defineConfig({
  testDir: "./e2e",
  fullyParallel: false,
  workers: 1,
  forbidOnly: !!process.env.CI,
  retries: 0,
  reporter: process.env.CI ? [["list"], ["html", { open: "never" }]] : "list",
  timeout: 60_000,
  expect: { timeout: 10_000 },
  use: {
    baseURL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"] } }],
  webServer: [
    {
      // The payments chain (credit top-ups are bought on it), as a developer starts it: `npm run chain`.
      command: `npx tsx scripts/chain.ts ${e2eTreasury} --port ${e2eChainPort} --confirmations 1 --block-time 1`,
      port: e2eChainPort,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: "ignore",
      stderr: "pipe",
    },
    {
      // Builds only when .next is older than the sources (scripts/build-if-stale.mjs, which compiles the
      // workspace SDK first), so within `npm test` the journeys reuse the build the real-server suite made.
      command: `node scripts/build-if-stale.mjs && node server.mjs -p ${port} -H 127.0.0.1`,
      url: `${baseURL}/api/health`,
      reuseExistingServer: false,
      timeout: 300_000,
      stdout: "ignore",
      stderr: "pipe",
      env: {
        NODE_ENV: "production",
        NEXT_TELEMETRY_DISABLED: "1",
        // The journeys share one server and one embedded node on a 2-core machine: a job may queue a while.
        ROUTING_TIMEOUT_MS: "120000",
        EMBEDDED_NODE_CONCURRENCY: String(e2eNodeSlots),
        DATA_DIR: dataDir,
        STARTER_CREDITS: "100",
        LOG_LEVEL: "warn",
        APP_ORIGIN: baseURL,
        // The webhook journey's receiver listens on loopback, which webhooks may reach only when allowed.
        WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
        ...e2ePaymentsEnv,
        // Sign-in offers WalletConnect through the relay the WalletConnect journey starts (only once chosen).
        ...e2eWalletConnectEnv,
      },
    },
  ],
});
