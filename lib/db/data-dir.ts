// The embedded database's directory (DATA_DIR): created here, and owned by one process at a time. Two
// processes on one PGlite directory silently lose writes, so the owner holds an exclusive lock on
// DATA_DIR/owner.lock through an open file descriptor (an open-file-description lock on Linux, flock on
// macOS, LockFileEx on Windows). The kernel drops it when the owner dies however it dies: kill -9, a crash,
// or a zombie not yet reaped. The pid written into the file is only for the refusal message; nothing trusts it.
import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import path from "node:path";
import { tryLock } from "fs-native-extensions";

export interface DataDirLock {
  /** Releases the lock (closing the descriptor releases it; so does the process's death). */
  release(): void;
}

/** Thrown when another live process holds DATA_DIR: its message is the one line an operator reads. */
export class DataDirInUseError extends Error {
  override readonly name = "DataDirInUseError";
  constructor(
    readonly dataDir: string,
    readonly ownerPid: number | undefined,
  ) {
    super(
      `The embedded database in ${dataDir} is in use by another process${ownerPid ? ` (pid ${ownerPid})` : ""}: ` +
        "stop it first (operator commands such as `npm run credits` reach a running server), " +
        "give this one its own DATA_DIR, or set DATABASE_URL so several processes share PostgreSQL.",
    );
  }
}

export const lockFileOf = (dataDir: string) => path.join(dataDir, "owner.lock");

function recordedOwner(file: string): number | undefined {
  try {
    const pid = Number(JSON.parse(readFileSync(file, "utf8")).pid);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Takes DATA_DIR for this process or throws DataDirInUseError; the directory must exist. */
export function lockDataDir(dataDir: string): DataDirLock {
  const file = lockFileOf(dataDir);
  const fd = openSync(file, "a+");
  let held = false;
  try {
    held = tryLock(fd);
  } finally {
    if (!held) closeSync(fd);
  }
  if (!held) throw new DataDirInUseError(dataDir, recordedOwner(file));
  ftruncateSync(fd);
  writeSync(fd, JSON.stringify({ pid: process.pid, since: new Date().toISOString() }), 0);
  // Written by releases before this one: its pid check is what made a dead owner look alive.
  rmSync(path.join(dataDir, "owner.pid"), { force: true });
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      closeSync(fd);
    },
  };
}

/** Creates DATA_DIR if it is missing and takes it for this process (DataDirInUseError when another holds it). */
export function takeDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  return lockDataDir(dataDir);
}
