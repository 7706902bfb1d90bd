import path from "node:path";
import { defineConfig } from "vitest/config";

const alias = { "@": path.resolve(import.meta.dirname) };
const shared = { pool: "forks" as const, testTimeout: 60_000, hookTimeout: 60_000, isolate: true };

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
          include: ["lib/**/*.test.ts", "app/**/*.test.ts", "scripts/**/*.test.ts", "tests/**/*.test.ts"],
          exclude: ["node_modules", "lib/client/dist/**", "e2e/**"],
          env: { TEST_DRIVER: "pglite" },
          ...shared,
        },
      },
      ...(process.env.TEST_DATABASE_URL
        ? [
            {
              resolve: { alias },
              test: { name: "postgres", include: databaseSuites, env: { TEST_DRIVER: "postgres" }, ...shared },
            },
          ]
        : []),
    ],
  },
});
