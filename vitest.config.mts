import path from "node:path";
import pg from "pg";
import { defineConfig } from "vitest/config";

const alias = { "@": path.resolve(import.meta.dirname) };

/** `npm test` includes the PostgreSQL suite whenever the local server answers (CI sets TEST_DATABASE_URL). */
async function reachablePostgres(): Promise<string | undefined> {
  if (process.env.TEST_DATABASE_URL) return process.env.TEST_DATABASE_URL;
  const url = "postgres://postgres@127.0.0.1:5432/test";
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    await client.query("select 1");
    return url;
  } catch {
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
    projects: [
      {
        resolve: { alias },
        test: {
          name: "pglite",
          include: ["lib/**/*.test.ts", "app/**/*.test.ts", "components/**/*.test.ts", "scripts/**/*.test.ts", "tests/**/*.test.ts"],
          exclude: ["node_modules", "lib/client/dist/**", "e2e/**"],
          env: { TEST_DRIVER: "pglite" },
          ...shared,
        },
      },
      ...(postgresUrl
        ? [
            {
              resolve: { alias },
              test: { name: "postgres", include: databaseSuites, env: { TEST_DRIVER: "postgres", TEST_DATABASE_URL: postgresUrl }, ...shared },
            },
          ]
        : []),
    ],
  },
});
