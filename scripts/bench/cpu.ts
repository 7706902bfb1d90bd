// CPU used while a phase runs, from /proc (Linux): the server process, PostgreSQL's processes, the whole
// machine. It tells whether a figure was limited by a saturated core or by waiting.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  ticksPerSecond ??= Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
  return ticksPerSecond;
}

/** utime + stime of a process in seconds, or NaN when /proc does not have it. */
export function processSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may contain spaces; the fields after its closing parenthesis are fixed.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / clockTicks();
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU seconds of one database's backends, tracked for as long as the database is used (pg-stats.ts samples
 * which backends serve it): on a server shared with other work, only what served our jobs counts.
 */
export interface BackendsCpu {
  cpuSeconds(): number;
}

/** CPU seconds of every process named `postgres` (backends that exit during a phase are not counted). */
function postgresSeconds(): number {
  let total = 0;
  let found = false;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() !== "postgres") continue;
    } catch {
      continue;
    }
    const s = processSeconds(Number(entry));
    if (Number.isFinite(s)) {
      total += s;
      found = true;
    }
  }
  return found ? total : Number.NaN;
}

function machineTimes() {
  let busy = 0;
  let all = 0;
  for (const cpu of os.cpus()) {
    const { user, nice, sys, idle, irq } = cpu.times;
    busy += user + nice + sys + irq;
    all += user + nice + sys + idle + irq;
  }
  return { busy, all };
}

/** Each figure in percent of one core (a 2-core machine has 200 %). */
export interface CpuUse {
  /** The server under test (HTTP, coordinator, embedded nodes and, with PGlite, the database). */
  server: number;
  /** PostgreSQL: the backends of our database when tracked, else every postgres process (NaN without PostgreSQL). */
  postgres: number;
  /** This process: the load generator (and graphile-worker's worker, in its phase). */
  bench: number;
  /** Everything else on the machine: whatever else was running at the time. */
  other: number;
  /** The machine's capacity: cores × 100. */
  capacity: number;
  /** Length of the measured window. */
  seconds: number;
}

/** Starts measuring; the returned function gives the CPU used since. */
export function measureCpu(serverPid: number | undefined, postgres: boolean | BackendsCpu): () => CpuUse {
  const postgresNow = () =>
    postgres === false ? Number.NaN : postgres === true ? postgresSeconds() : postgres.cpuSeconds();
  const started = performance.now();
  const server0 = serverPid ? processSeconds(serverPid) : Number.NaN;
  const pg0 = postgresNow();
  const bench0 = process.cpuUsage();
  const m0 = machineTimes();
  return () => {
    const seconds = (performance.now() - started) / 1000;
    const m1 = machineTimes();
    const capacity = os.cpus().length * 100;
    const benchUse = process.cpuUsage(bench0);
    const server = (((serverPid ? processSeconds(serverPid) : Number.NaN) - server0) / seconds) * 100;
    const postgresUse = ((postgresNow() - pg0) / seconds) * 100;
    const bench = ((benchUse.user + benchUse.system) / 1e6 / seconds) * 100;
    const machine = ((m1.busy - m0.busy) / (m1.all - m0.all)) * capacity;
    const known = [server, postgresUse, bench].filter(Number.isFinite).reduce((a, b) => a + b, 0);
    return { server, postgres: postgresUse, bench, other: Math.max(0, machine - known), capacity, seconds };
  };
}

/** Starts measuring several processes; the returned function gives each one's CPU seconds since. */
export function measureProcessesCpu(pids: number[]): () => number[] {
  const before = pids.map(processSeconds);
  return () => pids.map((pid, i) => processSeconds(pid) - before[i]);
}
