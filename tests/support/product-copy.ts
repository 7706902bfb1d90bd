// The product as a newcomer gets it: a copy of the checkout's files (what `git clone` gives: tracked files
// and new ones not ignored, nothing built, no data), committed to a git repository of its own so a test can
// ask `git status` afterwards, with this checkout's node_modules (installing again would add minutes and
// test npm, not us) and its build cache. The README's commands run in it as child process trees of their own,
// killed as groups.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const root = process.cwd();

export interface ProductCopy {
  dir: string;
  /** The default DATA_DIR (./.data) of the copy. */
  dataDir: string;
  /** Runs a command to its end in the copy (as a shell would run the README's line). */
  run(command: string, env?: Record<string, string>, timeoutMs?: number): Promise<Finished>;
  /** Starts a long-running command in the copy as its own process group. */
  spawn(command: string, env?: Record<string, string>): Running;
  /** `git status --porcelain` of the copy: what the commands changed or left behind, untracked included. */
  gitStatus(): string;
  remove(): void;
}

export interface Finished {
  code: number | null;
  output: string;
}

export interface Running {
  process: ChildProcess;
  /** What it printed so far, stdout and stderr. */
  output(): string;
  exited: Promise<Finished>;
  /** Sends `signal` to the whole process group (npm, its shells and the server) and waits for the leader to exit. */
  kill(signal?: NodeJS.Signals): Promise<Finished>;
}

/** Only what a person's shell would have: nothing of the test runner's configuration leaks in. */
function shellEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (name !== "PATH" && name !== "HOME") delete env[name];
  return Object.assign(env, { NO_COLOR: "1", NEXT_TELEMETRY_DISABLED: "1" }, extra);
}

export function copyProduct(): ProductCopy {
  const dir = mkdtempSync(path.join(tmpdir(), "en-readme-"));
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\0")
    .filter((file) => file && existsSync(path.join(root, file)));
  for (const file of files) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    cpSync(path.join(root, file), path.join(dir, file));
  }
  // Hard links: a copy in a second, takes no space, and lies inside the copy (Turbopack refuses packages
  // reached through a link out of the project). Another filesystem gets a real copy.
  try {
    execFileSync("cp", ["-al", path.join(root, "node_modules"), path.join(dir, "node_modules")]);
  } catch {
    execFileSync("cp", ["-a", path.join(root, "node_modules"), path.join(dir, "node_modules")]);
  }
  // This checkout's Turbopack cache (.next/cache, ignored like the rest of .next), as a CI cache would
  // restore it: the copy's build still runs every step (compiling, type checking, collecting page data, where
  // a side effect would show), but recompiles only what changed: 46 s instead of 119 s on a 2-core machine.
  // A real copy: the build writes into its cache files, which hard links would share with this checkout.
  const turbopackCache = path.join(root, ".next", "cache", "turbopack");
  if (existsSync(turbopackCache))
    cpSync(turbopackCache, path.join(dir, ".next", "cache", "turbopack"), { recursive: true });
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, stdio: "ignore" });
  git("init", "-q");
  git("add", "-A");
  git("-c", "user.name=test", "-c", "user.email=test@example.invalid", "commit", "-qm", "copy");

  const spawnIn = (command: string, env: Record<string, string> = {}): Running => {
    const child = spawn("sh", ["-c", command], {
      cwd: dir,
      env: shellEnv(env),
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise<Finished>((resolve) => child.once("exit", (code) => resolve({ code, output: out })));
    return {
      process: child,
      output: () => out,
      exited,
      async kill(signal = "SIGKILL") {
        try {
          if (child.pid) process.kill(-child.pid, signal);
        } catch {
          // the group is gone already
        }
        return exited;
      },
    };
  };

  return {
    dir,
    dataDir: path.join(dir, ".data"),
    spawn: spawnIn,
    async run(command, env = {}, timeoutMs = 300_000) {
      const running = spawnIn(command, env);
      const timer = setTimeout(() => void running.kill(), timeoutMs);
      const finished = await running.exited;
      clearTimeout(timer);
      return finished;
    },
    gitStatus: () =>
      execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: dir, encoding: "utf8" }),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export type HealthAnswer = { status: number; body: string } | "refused";

/**
 * Polls GET /api/health until it answers 200, recording every answer on the way (a refused connection
 * while the port is not open yet, 503 while starting). Throws if the process exits first or time runs out.
 */
export async function waitHealthy(baseUrl: string, running: Running, timeoutMs = 120_000): Promise<HealthAnswer[]> {
  const answers: HealthAnswer[] = [];
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void running.exited.then(() => (exited = true));
  for (let delay = 50; ; delay = Math.min(delay * 2, 250)) {
    const answer: HealthAnswer = await fetch(`${baseUrl}/api/health`).then(
      async (res) => ({ status: res.status, body: await res.text() }),
      () => "refused" as const,
    );
    answers.push(answer);
    if (answer !== "refused" && answer.status === 200) return answers;
    if (exited) throw new Error(`the server exited before it was healthy:\n${running.output()}`);
    if (Date.now() > deadline) throw new Error(`not healthy within ${timeoutMs} ms:\n${running.output()}`);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** The state letter of a process (`R`, `S`, `Z` for a zombie …) from /proc, or undefined once it is gone. */
export function processState(pid: number): string | undefined {
  try {
    return /\) (\w) /.exec(readFileSync(`/proc/${pid}/stat`, "utf8"))?.[1];
  } catch {
    return undefined;
  }
}

/** Overwrites a file of the copy (to plant what a dead owner might have left). */
export const writeInCopy = (copy: ProductCopy, file: string, text: string) =>
  writeFileSync(path.join(copy.dir, file), text);
