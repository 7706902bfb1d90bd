// `--baseline-receipts-off`: the baseline of issue 42's measurement (what a receipt costs the drain), built from
// this tree's HEAD: a detached worktree of it with receipts-off.patch applied, which switches the receipt step off
// there (job.completed goes out without data.receipt; nothing is signed or stored). The product has no such
// switch, so every completed job keeps its receipt; only the bench's throwaway copy lacks one.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const patchPath = "scripts/bench/receipts-off.patch";

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

/**
 * The checkout to measure against: HEAD of `here` with the receipt step off, its node_modules hard links to
 * `here`'s. Kept between runs in the temporary directory and redone only when HEAD, the patch or the lockfile
 * changed, so its production build is reused. Uncommitted changes of `here` are not in it (said on stderr).
 */
export function receiptsOffCheckout(here: string, report: (message: string) => void): string {
  const patchFile = path.join(here, patchPath);
  const head = git(here, "rev-parse", "HEAD");
  const patch = readFileSync(patchFile, "utf8");
  const lock = readFileSync(path.join(here, "package-lock.json"), "utf8");
  const key = createHash("sha256").update(`${head}\n${patch}\n${lock}`).digest("hex");
  const dir = path.join(
    os.tmpdir(),
    `en-bench-receipts-off-${createHash("sha256").update(here).digest("hex").slice(0, 8)}`,
  );
  const marker = path.join(dir, ".receipts-off");
  if (git(here, "status", "--porcelain", "--untracked-files=no") !== "")
    report("receipts-off baseline: this tree has uncommitted changes; the baseline is HEAD without them");
  if (existsSync(marker) && readFileSync(marker, "utf8") === key) return dir;
  report(`receipts-off baseline: ${head.slice(0, 10)} with ${patchPath} in ${dir}`);
  if (!existsSync(path.join(dir, ".git"))) {
    git(here, "worktree", "prune");
    git(here, "worktree", "add", "--detach", "--force", dir, head);
  } else {
    git(dir, "checkout", "--quiet", "--force", "--detach", head);
    git(dir, "clean", "--quiet", "--force", "--", "lib", "app", "components");
  }
  try {
    git(dir, "apply", patchFile);
  } catch (error) {
    const reason = error instanceof Error && "stderr" in error ? String(error.stderr) : String(error);
    throw new Error(`${patchPath} no longer applies to HEAD: update it with the code.\n${reason}`);
  }
  // Hard links: no install, the same packages, and nothing of `here`'s changed by the copy.
  execFileSync("rm", ["-rf", path.join(dir, "node_modules")]);
  execFileSync("cp", ["-al", path.join(here, "node_modules"), path.join(dir, "node_modules")]);
  writeFileSync(marker, key);
  return dir;
}
