// `npm run test:faults`: the fault-injection scenarios (kill -9 nodes and servers, stop PostgreSQL), one
// file at a time on 127.0.0.1 only. Kept apart from the unit projects: each scenario runs real processes.
import path from "node:path";
import { defineConfig } from "vitest/config";

const root = path.resolve(import.meta.dirname, "../..");

export default defineConfig({
  root,
  resolve: { alias: { "@": root } },
  test: {
    name: "faults",
    include: ["tests/faults/**/*.faults.ts"],
    reporters: ["default", "./tests/support/failures-last-reporter.ts"],
    pool: "forks",
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 120_000,
  },
});
