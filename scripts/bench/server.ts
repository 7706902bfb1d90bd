// The server under test: the real route handlers in their own process (tests/support/serve.ts), on a
// fresh PGlite data directory or a PostgreSQL database (throwaway, or one shared by several instances).
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseEnv } from "@/lib/env";
import { signUpDeveloper, workloadScopes, type Developer } from "@/tests/support/developer";
import { createThrowawayDatabase } from "@/tests/support/postgres";
import { startServerProcess, type Child } from "@/tests/support/processes";

export type Driver = "pglite" | "postgres";

export interface ServerInstance {
  baseUrl: string;
  pid: number | undefined;
  stop(): Promise<void>;
}

export interface ServerUnderTest extends ServerInstance {
  /** A developer with a huge credit balance, and a fresh API key with every scope. */
  developer: Developer;
  apiKey: string;
}

export interface ServerOptions {
  driver: Driver;
  /** PostgreSQL server to create the throwaway database on (driver "postgres", no `databaseUrl`). */
  adminUrl?: string;
  /** A PostgreSQL database the caller owns (kept when the server stops): several instances share it. */
  databaseUrl?: string;
  embeddedNodes: number;
  env?: Record<string, string>;
  /** Directory for a V8 CPU profile of the server process (`node --cpu-prof`), written when it stops. */
  cpuProfileDir?: string;
  /** The checkout whose server runs (default: this one; `--baseline` names another). */
  root?: string;
}

/** Enough that no benchmark ever runs out (the balance is a bigint). */
const starterCredits = String(10 ** 12);

/** One server process; its own PGlite directory or throwaway database is removed when it stops. */
export async function startServerInstance(options: ServerOptions): Promise<ServerInstance> {
  const dataDir = options.driver === "pglite" ? mkdtempSync(path.join(os.tmpdir(), "en-bench-")) : undefined;
  const ownDatabase =
    options.driver === "postgres" && !options.databaseUrl
      ? await createThrowawayDatabase(options.adminUrl ?? "", "en_bench")
      : undefined;
  const databaseUrl = options.databaseUrl ?? ownDatabase?.url;
  const cleanUp = async () => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    await ownDatabase?.drop();
  };
  // The product's own defaults where the test harness would pick test-friendly ones.
  const defaults = parseEnv({ NODE_ENV: "production" });
  let child: Child;
  try {
    child = await startServerProcess(
      {
        ...(dataDir ? { DATA_DIR: dataDir } : {}),
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
        EMBEDDED_NODES: String(options.embeddedNodes),
        SWEEP_INTERVAL_MS: String(defaults.SWEEP_INTERVAL_MS),
        RATE_LIMIT_PER_MINUTE: "0",
        ACCOUNT_RATE_PER_MINUTE: "0",
        STARTER_CREDITS: starterCredits,
        LOG_LEVEL: "warn",
        ...options.env,
      },
      options.cpuProfileDir ? ["--cpu-prof", `--cpu-prof-dir=${options.cpuProfileDir}`] : [],
      options.root,
    );
  } catch (error) {
    await cleanUp();
    throw error;
  }
  const stop = async () => {
    // SIGTERM: the harness stops its nodes and closes the database before exiting (and V8 writes the
    // profile); SIGKILL if it hangs.
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
  return { baseUrl: String(child.ready.baseUrl), pid: child.process.pid, stop };
}

/** A server instance with a signed-up developer and an API key. */
export async function startServerUnderTest(options: ServerOptions): Promise<ServerUnderTest> {
  const instance = await startServerInstance(options);
  try {
    const developer = await signUpDeveloper(instance.baseUrl, { name: "Bench Developer" });
    const apiKey = await developer.createApiKey(workloadScopes);
    return { ...instance, developer, apiKey };
  } catch (error) {
    await instance.stop();
    throw error;
  }
}
