import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DataDirInUseError, lockDataDir, lockFileOf } from "./data-dir";

const dirs: string[] = [];
const newDataDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "en-lock-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Another process that takes DATA_DIR's lock the way the server does, and keeps it until it dies. */
function holderProcess(dataDir: string) {
  const script = `const fs = require("node:fs"); const { tryLock } = require("fs-native-extensions");
    const fd = fs.openSync(process.argv[1], "a+"); fs.writeFileSync(process.argv[1], JSON.stringify({ pid: process.pid }));
    console.log(tryLock(fd) ? "held" : "refused"); setInterval(() => {}, 1 << 30);`;
  const child = spawn(process.execPath, ["-e", script, lockFileOf(dataDir)], { stdio: ["ignore", "pipe", "inherit"] });
  const answer = new Promise<string>((resolve) =>
    child.stdout.once("data", (d: Buffer) => resolve(d.toString().trim())),
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return { child, answer, exited };
}

describe("DATA_DIR's owner", () => {
  it("is one holder at a time: a second is refused with one line naming the directory and the owner's pid", () => {
    const dataDir = newDataDir();
    const first = lockDataDir(dataDir);
    let refusal: unknown;
    try {
      lockDataDir(dataDir);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(DataDirInUseError);
    expect((refusal as Error).message).toMatch(
      new RegExp(
        `^The embedded database in ${dataDir} is in use by another process \\(pid ${process.pid}\\): [^\\n]+$`,
      ),
    );
    first.release();
    lockDataDir(dataDir).release();
  });

  it("is refused while another live process holds it, and free the moment that process is killed with SIGKILL", async () => {
    const dataDir = newDataDir();
    const holder = holderProcess(dataDir);
    expect(await holder.answer).toBe("held");
    expect(() => lockDataDir(dataDir)).toThrow(DataDirInUseError);
    holder.child.kill("SIGKILL");
    await holder.exited;
    lockDataDir(dataDir).release();
  });

  it("does not trust a pid written in the directory: a live process's pid there (a reused pid) does not make it owned", async () => {
    const dataDir = newDataDir();
    const unrelated = holderProcess(newDataDir());
    try {
      expect(await unrelated.answer).toBe("held");
      writeFileSync(lockFileOf(dataDir), JSON.stringify({ pid: unrelated.child.pid }));
      writeFileSync(path.join(dataDir, "owner.pid"), String(unrelated.child.pid));
      lockDataDir(dataDir).release();
      expect(existsSync(path.join(dataDir, "owner.pid"))).toBe(false);
    } finally {
      unrelated.child.kill("SIGKILL");
    }
  });
});
