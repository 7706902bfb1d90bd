// Where the server's CPU time goes: V8 CPU profiles (`node --cpu-prof`, one file per process and thread)
// read back and summed by function, ranked by self time.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  /** Microseconds on the machine's monotonic clock (what process.hrtime reads in any process). */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A window on the monotonic clock, in microseconds: only the samples taken inside it count. */
export interface ProfileWindow {
  fromUs: number;
  toUs: number;
}

/** Now, on the clock V8's profiles use. */
export const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n);

export interface ProfiledFunction {
  name: string;
  /** Where it is defined: a file of ours, or `package › file` for a dependency. */
  where: string;
  selfMs: number;
}

export interface ProfileSummary {
  files: string[];
  /** Sampled time that was not idle, in ms (all profiled threads, within the window). */
  busyMs: number;
  /** Length of the window, ms. */
  windowMs: number;
  top: ProfiledFunction[];
}

/** V8's pseudo-functions: waiting for the event loop is not work. */
const idle = new Set(["(idle)", "(root)"]);

function shortLocation(url: string, line: number): string {
  if (!url) return "(native or V8)";
  const file = url.replace(/^file:\/\//, "");
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(file);
  const shown = dependency
    ? `${dependency[1]} › ${path.basename(dependency[2])}`
    : path.relative(process.cwd(), file) || file;
  return `${shown}:${line + 1}`;
}

/**
 * Sums every `.cpuprofile` in `dir` by function, counting only samples inside `window` (a profile covers
 * the process's whole life, start-up included), and returns the `count` largest by self time.
 */
export function summarizeProfiles(dir: string, window: ProfileWindow, count = 15): ProfileSummary {
  const files = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"));
  const byFunction = new Map<string, ProfiledFunction>();
  let busyMs = 0;
  for (const file of files) {
    const profile = JSON.parse(readFileSync(path.join(dir, file), "utf8")) as CpuProfile;
    const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
    const parents = new Map<number, number>();
    for (const n of profile.nodes) for (const child of n.children ?? []) parents.set(child, n.id);
    /**
     * Node's internals and native functions (a syscall such as writev) are placed by their nearest caller
     * outside Node itself: `writev` from pg's query.js is statements sent to PostgreSQL.
     */
    const placeOf = (id: number): string => {
      const own = frames.get(id);
      if (own?.url && !own.url.startsWith("node:")) return shortLocation(own.url, own.lineNumber);
      for (let at = parents.get(id); at !== undefined; at = parents.get(at)) {
        const frame = frames.get(at);
        if (frame?.url && !frame.url.startsWith("node:"))
          return `${own?.url ? "node" : "native"}, from ${shortLocation(frame.url, frame.lineNumber)}`;
      }
      return own?.url ? shortLocation(own.url, own.lineNumber) : "(native or V8)";
    };
    let at = profile.startTime;
    profile.samples.forEach((id, i) => {
      const delta = profile.timeDeltas[i] ?? 0;
      at += delta;
      const frame = frames.get(id);
      const ms = delta / 1000;
      if (!frame || idle.has(frame.functionName) || at < window.fromUs || at > window.toUs) return;
      const name = frame.functionName || "(anonymous)";
      const where = placeOf(id);
      const key = `${name}\u0000${where}`;
      const entry = byFunction.get(key) ?? { name, where, selfMs: 0 };
      entry.selfMs += ms;
      byFunction.set(key, entry);
      busyMs += ms;
    });
  }
  const top = [...byFunction.values()].sort((a, b) => b.selfMs - a.selfMs).slice(0, count);
  return { files, busyMs, windowMs: (window.toUs - window.fromUs) / 1000, top };
}

/** Where a profiled function belongs: a dependency's package, V8's own work, or our code's top folder. */
function ownerOf(where: string): string {
  if (where.startsWith("(")) return where.replace(/:\d+$/, "");
  const place = where.replace(/^(node|native), from /, "");
  const dependency = /^((?:@[^/]+\/)?[^ /]+) › /.exec(place);
  if (dependency) return dependency[1];
  if (place.startsWith("node:")) return "node:internal";
  const [top] = place.split("/");
  return top.includes(".next") || top === ".next" ? ".next (our bundles)" : top;
}

/**
 * Every `.cpuprofile` in `dir`, self time summed by owner (ownerOf) within `window`: the packages, V8's
 * pseudo-functions ((garbage collector), (program)) and our bundles, largest first.
 */
export function summarizeProfilesByOwner(dir: string, window: ProfileWindow): { owner: string; selfMs: number }[] {
  const { top } = summarizeProfiles(dir, window, Number.POSITIVE_INFINITY);
  const byOwner = new Map<string, number>();
  for (const f of top) {
    const owner = f.name.startsWith("(") ? f.name : ownerOf(f.where);
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + f.selfMs);
  }
  return [...byOwner].map(([owner, selfMs]) => ({ owner, selfMs })).sort((a, b) => b.selfMs - a.selfMs);
}
