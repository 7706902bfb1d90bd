import { availableParallelism } from "node:os";
import path from "node:path";
import pg from "pg";
import { defineConfig } from "vitest/config";

const isCi = process.env.CI === "true" || process.env.CI === "1";
// The workspace SDK resolves to its source (as in tsconfig.json's paths), so no build is needed first.
const alias = {
  "@execution-network/client": path.resolve(import.meta.dirname, "lib/client/src/index.ts"),
  "@": path.resolve(import.meta.dirname),
};

/**
 * `npm test` includes the PostgreSQL suite whenever the server answers: TEST_DATABASE_URL when set, else the
 * local default. Only PostgreSQL catches the races the concurrency and idempotency suites are for, so in CI
 * (CI=true) an unreachable server fails the run instead of silently shrinking it.
 */
async function reachablePostgres(): Promise<string | undefined> {
  const url = process.env.TEST_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test";
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query("select 1");
    return url;
  } catch (error) {
    if (isCi || process.env.TEST_DATABASE_URL) {
      throw new Error(
        `PostgreSQL is not reachable at ${url} (${String(error)}): the PostgreSQL suite may not be skipped${isCi ? " in CI" : " when TEST_DATABASE_URL is set"}.`,
      );
    }
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const postgresUrl = await reachablePostgres();
if (postgresUrl) process.env.TEST_DATABASE_URL = postgresUrl;

const shared = {
  pool: "forks" as const,
  testTimeout: 60_000,
  hookTimeout: 60_000,
  isolate: true,
  globalSetup: ["tests/support/global-setup.ts"],
};

// The database-level suites run twice: on embedded PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
const databaseSuites = ["tests/integration/**/*.test.ts"];

export default defineConfig({
  resolve: { alias },
  test: {
    reporters: ["default", "./tests/support/failures-last-reporter.ts"],
    // One more test file than cores at a time (vitest's default is one fewer: a single file at a time on CI's
    // 2 cores). The files mostly wait (on servers, databases, timers and child processes) rather than compute,
    // and each has its own database, server and ports: on 2 cores, 3 files at once ran the three projects in
    // 318 s instead of 518 s, with the same results.
    maxWorkers: availableParallelism() + 1,
    projects: [
      {
        resolve: { alias },
        test: {
          name: "pglite",
          include: [
            "lib/**/*.test.ts",
            "app/**/*.test.ts",
            "components/**/*.test.ts",
            "scripts/**/*.test.ts",
            "tests/**/*.test.ts",
          ],
          exclude: ["node_modules", "lib/client/dist/**", "e2e/**", "tests/next-start/**", "tests/start-up/**"],
          env: { TEST_DRIVER: "pglite" },
          ...shared,
        },
      },
      {
        // The real server (server.mjs on the production build, built once per run by the global setup).
        resolve: { alias },
        test: {
          name: "next-start",
          include: ["tests/next-start/**/*.test.ts"],
          ...shared,
          testTimeout: 120_000,
          hookTimeout: 240_000,
          globalSetup: ["scripts/build-if-stale.mjs"],
          env: postgresUrl ? { TEST_DATABASE_URL: postgresUrl } : {},
        },
      },
      ...(postgresUrl
        ? [
            {
              resolve: { alias },
              test: {
                name: "postgres",
                include: databaseSuites,
                env: { TEST_DRIVER: "postgres", TEST_DATABASE_URL: postgresUrl },
                ...shared,
              },
            },
          ]
        : []),
    ],
  },
});
