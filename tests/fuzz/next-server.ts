// The real product server: server.mjs serving the production build, in its own process group on 127.0.0.1,
// built first only when `.next` is missing or stale. Used by the fuzz suite and the load soak.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
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
const serverScript = path.join(root, "server.mjs");

/** Builds (SDK + `next build`) only when `.next` is missing or older than the sources: the one build rule of the test suites. */
export async function ensureBuild(log: (line: string) => void = () => undefined): Promise<void> {
  const { ensureNextBuild } = (await import(path.join(root, "scripts", "build-if-stale.mjs"))) as {
    ensureNextBuild(): boolean;
  };
  if (ensureNextBuild()) log("built the app (sources had changed)");
}

/** Refuses a port another process listens on: its health route would pass for the server's own. */
async function ensurePortFree(port: number): Promise<void> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE"
          ? new Error(`port ${port} of 127.0.0.1 is taken by another process: stop it, or choose another port`)
          : error,
      ),
    );
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve()));
  });
}

export async function startNextServer(
  port: number,
  env: Record<string, string>,
  readyTimeoutMs = 120_000,
): Promise<NextServer> {
  const baseUrl = `http://127.0.0.1:${port}`;
  await ensurePortFree(port);
  const child = spawn(process.execPath, [serverScript, "-p", String(port), "-H", "127.0.0.1"], {
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
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}):\n${out}`);
    try {
      const res = await fetch(`${baseUrl}/api/health`, { signal: AbortSignal.timeout(5_000) });
      if (res.status === 200) return server;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await server.stop("SIGKILL");
      throw new Error(`the server on ${baseUrl} was not ready in ${readyTimeoutMs} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 1_000);
  }
}
