// Child processes for tests: a server instance or a standalone node, killed as a whole process group.
import { spawn, type ChildProcess } from "node:child_process";

export interface Child {
  process: ChildProcess;
  /** The first JSON line the process printed. */
  ready: Record<string, unknown>;
  output: () => string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * `nodeArgs` go to node itself (e.g. the bench's `--cpu-prof`, which NODE_OPTIONS does not accept); `cwd` is
 * the checkout whose script runs (the bench's `--baseline` serves another one).
 */
export function startChild(
  script: string,
  args: string[],
  env: Record<string, string>,
  readyTimeoutMs = 60_000,
  nodeArgs: string[] = [],
  cwd = process.cwd(),
): Promise<Child> {
  // One process (node with the tsx loader), so signals reach exactly the program under test.
  const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", script, ...args], {
    cwd,
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start: ${out}`)), readyTimeoutMs);
    child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const line = out.split("\n").find((l) => l.startsWith("{") && l.includes('"'));
      if (line) {
        clearTimeout(timer);
        resolve({
          process: child,
          ready: JSON.parse(line) as Record<string, unknown>,
          output: () => out,
          async kill(signal = "SIGKILL") {
            if (child.exitCode === null && child.pid) {
              try {
                process.kill(-child.pid, signal);
              } catch {
                // already gone
              }
            }
            await exited;
          },
        });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited (${code}) before it was ready: ${out}`));
    });
  });
}

export const startServerProcess = (env: Record<string, string>, nodeArgs: string[] = [], cwd = process.cwd()) =>
  startChild("tests/support/serve.ts", [], env, 60_000, nodeArgs, cwd);
export const startNodeProcess = (
  baseUrl: string,
  token: string,
  args: string[] = [],
  env: Record<string, string> = {},
) => startChild("scripts/node.ts", ["--url", baseUrl, "--token", token, ...args], env);
