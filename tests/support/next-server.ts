// The real server for tests: server.mjs (as `npm run serve` starts it) on the build in .next (see
// scripts/build-if-stale.mjs), on a free port of 127.0.0.1, with its own embedded database directory or
// PostgreSQL database. Spawned as its own process group so nothing outlives the test.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

export interface NextServer {
  baseUrl: string;
  port: number;
  process: ChildProcess;
  /** Everything the server printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  exited: Promise<number | string>;
  /** Sends `signal` to the server process alone, as a container runtime does, and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

export interface NextServerOptions {
  env?: Record<string, string>;
  /** Reuse a port (a restart on the same address). */
  port?: number;
  /** The checkout whose build is served (the bench's `--baseline` serves another one). */
  cwd?: string;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A fresh directory for an embedded database; removed by the returned function. */
export function tempDataDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), "en-next-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * How a checkout serves its build: its server.mjs, or `next start` for a checkout from before server.mjs (a
 * bench's `--baseline`), whose start-up then handles SIGTERM itself (NEXT_MANUAL_SIG_HANDLE, as its own
 * `npm run serve` set it).
 */
function serveCommand(cwd: string, port: number): { args: string[]; env: Record<string, string> } {
  const listen = ["-p", String(port), "-H", "127.0.0.1"];
  return existsSync(path.join(cwd, "server.mjs"))
    ? { args: ["server.mjs", ...listen], env: {} }
    : { args: ["node_modules/next/dist/bin/next", "start", ...listen], env: { NEXT_MANUAL_SIG_HANDLE: "true" } };
}

export async function startNextServer(options: NextServerOptions = {}): Promise<NextServer> {
  const port = options.port ?? (await freePort());
  const baseUrl = `http://127.0.0.1:${port}`;
  const cwd = options.cwd ?? process.cwd();
  const serve = serveCommand(cwd, port);
  const child = spawn(process.execPath, serve.args, {
    cwd,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      // Only what a deployment would set: nothing of the test runner's own environment leaks in.
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      ...serve.env,
      LOG_LEVEL: "warn",
      APP_ORIGIN: baseUrl,
      SESSION_SECRET: "next-start-test-session-secret-0123456789abcdef",
      ...options.env,
    },
  });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown")),
  );
  const server: NextServer = {
    baseUrl,
    port,
    process: child,
    output: () => out,
    exited,
    async stop(signal = "SIGKILL") {
      if (child.exitCode === null && child.signalCode === null && child.pid) {
        try {
          if (signal === "SIGKILL") process.kill(-child.pid, signal);
          else process.kill(child.pid, signal);
        } catch {
          // already gone
        }
      }
      return exited;
    },
  };
  // Ready when the health route answers (the database is migrated and the nodes are started by then).
  const deadline = Date.now() + 120_000;
  let delay = 50;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}) before it was ready:\n${out}`);
    const ok = await fetch(`${baseUrl}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return server;
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`the server did not answer /api/health within 120 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(500, delay * 2);
  }
}
