// `npm run test:start-up`: the README's run command on a fresh copy of the checkout (build, start, kill -9,
// restart, a second server, operator commands). One file at a time: each runs a whole product.
import path from "node:path";
import { defineConfig } from "vitest/config";

const root = path.resolve(import.meta.dirname, "../..");

export default defineConfig({
  root,
  resolve: { alias: { "@": root } },
  test: {
    name: "start-up",
    include: ["tests/start-up/**/*.test.ts"],
    reporters: ["default", "./tests/support/failures-last-reporter.ts"],
    pool: "forks",
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 120_000,
  },
});
