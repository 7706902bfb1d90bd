// The server under test: the real route handlers in their own process (tests/support/serve.ts), on a
// fresh PGlite data directory or a throwaway PostgreSQL database, removed again when it stops.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseEnv } from "@/lib/env";
import { signUpDeveloper, type Developer } from "@/tests/support/developer";
import { createThrowawayDatabase } from "@/tests/support/postgres";
import { startServerProcess, type Child } from "@/tests/support/processes";

export type Driver = "pglite" | "postgres";

export interface ServerUnderTest {
  baseUrl: string;
  pid: number | undefined;
  /** A developer with a huge credit balance, and a fresh API key with every scope. */
  developer: Developer;
  apiKey: string;
  stop(): Promise<void>;
}

export interface ServerOptions {
  driver: Driver;
  /** PostgreSQL server to create the throwaway database on (driver "postgres"). */
  adminUrl?: string;
  embeddedNodes: number;
  env?: Record<string, string>;
}

/** Enough that no benchmark ever runs out (the balance is a bigint). */
const starterCredits = String(10 ** 12);

export async function startServerUnderTest(options: ServerOptions): Promise<ServerUnderTest> {
  const dataDir = options.driver === "pglite" ? mkdtempSync(path.join(os.tmpdir(), "en-bench-")) : undefined;
  const database =
    options.driver === "postgres" ? await createThrowawayDatabase(options.adminUrl ?? "", "en_bench") : undefined;
  const cleanUp = async () => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  };
  // The product's own defaults where the test harness would pick test-friendly ones.
  const defaults = parseEnv({ NODE_ENV: "production" });
  let child: Child;
  try {
    child = await startServerProcess({
      ...(dataDir ? { DATA_DIR: dataDir } : {}),
      ...(database ? { DATABASE_URL: database.url } : {}),
      EMBEDDED_NODES: String(options.embeddedNodes),
      SWEEP_INTERVAL_MS: String(defaults.SWEEP_INTERVAL_MS),
      RATE_LIMIT_PER_MINUTE: "0",
      STARTER_CREDITS: starterCredits,
      LOG_LEVEL: "warn",
      ...options.env,
    });
  } catch (error) {
    await cleanUp();
    throw error;
  }
  const stop = async () => {
    // SIGTERM: the harness stops its nodes and closes the database before exiting; SIGKILL if it hangs.
    const graceful = child.kill("SIGTERM");
    let timer: NodeJS.Timeout | undefined;
    const hung = await Promise.race([
      graceful.then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), 15_000))),
    ]);
    clearTimeout(timer);
    if (hung) await child.kill("SIGKILL");
    await cleanUp();
  };
  try {
    const baseUrl = String(child.ready.baseUrl);
    const developer = await signUpDeveloper(baseUrl, { name: "Bench Developer" });
    const apiKey = await developer.createApiKey();
    return { baseUrl, pid: child.process.pid, developer, apiKey, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
