// The real product server: `next start` of the production build, in its own process group on 127.0.0.1,
// built first only when `.next` has no build. Used by the fuzz suite and the load soak.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

export interface NextServer {
  baseUrl: string;
  pid: number;
  process: ChildProcess;
  output(): string;
  /** SIGTERM (graceful) by default, SIGKILL after 15 s. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

const root = process.cwd();
const nextBin = path.join(root, "node_modules", "next", "dist", "bin", "next");

/** Runs `next build` unless a build is already there (the tests engineer's suites share one build). */
export function ensureBuild(log: (line: string) => void = () => undefined): void {
  if (existsSync(path.join(root, ".next", "BUILD_ID"))) return;
  log("no production build in .next: running next build (a few minutes on a loaded machine)");
  const result = spawnSync(process.execPath, [nextBin, "build"], {
    cwd: root,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (result.status !== 0) throw new Error(`next build failed (exit ${result.status})`);
}

export async function startNextServer(port: number, env: Record<string, string>, readyTimeoutMs = 120_000): Promise<NextServer> {
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [nextBin, "start", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: root,
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", PORT: String(port), ...env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  child.stderr?.on("data", (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const signalGroup = (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
    }
  };
  const server: NextServer = {
    baseUrl,
    pid: child.pid ?? 0,
    process: child,
    output: () => out,
    async stop(signal = "SIGTERM") {
      signalGroup(signal);
      let timer: NodeJS.Timeout | undefined;
      const hung = await Promise.race([
        exited.then(() => false),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), 15_000))),
      ]);
      clearTimeout(timer);
      if (hung) {
        signalGroup("SIGKILL");
        await exited;
      }
    },
  };
  // Ready when the liveness route answers (the database is opened by instrumentation at start).
  const deadline = Date.now() + readyTimeoutMs;
  let delay = 100;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited (${child.exitCode}):\n${out}`);
    try {
      const res = await fetch(`${baseUrl}/api/health`, { signal: AbortSignal.timeout(5_000) });
      if (res.status === 200) return server;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await server.stop("SIGKILL");
      throw new Error(`next start on ${baseUrl} was not ready in ${readyTimeoutMs} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 1_000);
  }
}
