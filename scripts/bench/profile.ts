// Where the server's CPU time goes: V8 CPU profiles (`node --cpu-prof`, one file per process and thread)
// read back and summed by function, ranked by self time.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfiledFunction {
  name: string;
  /** Where it is defined: a file of ours, or `package › file` for a dependency. */
  where: string;
  selfMs: number;
}

export interface ProfileSummary {
  files: string[];
  /** Sampled time that was not idle, in ms (all profiled threads). */
  busyMs: number;
  top: ProfiledFunction[];
}

/** V8's pseudo-functions: waiting for the event loop is not work. */
const idle = new Set(["(idle)", "(root)"]);

function shortLocation(url: string, line: number): string {
  if (!url) return "";
  const file = url.replace(/^file:\/\//, "");
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(file);
  const shown = dependency ? `${dependency[1]} › ${path.basename(dependency[2])}` : path.relative(process.cwd(), file) || file;
  return `${shown}:${line + 1}`;
}

/** Sums every `.cpuprofile` in `dir` by function and returns the `count` largest by self time. */
export function summarizeProfiles(dir: string, count = 15): ProfileSummary {
  const files = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"));
  const byFunction = new Map<string, ProfiledFunction>();
  let busyMs = 0;
  for (const file of files) {
    const profile = JSON.parse(readFileSync(path.join(dir, file), "utf8")) as CpuProfile;
    const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
    profile.samples.forEach((id, i) => {
      const frame = frames.get(id);
      const ms = (profile.timeDeltas[i] ?? 0) / 1000;
      if (!frame || idle.has(frame.functionName)) return;
      const name = frame.functionName || "(anonymous)";
      const where = shortLocation(frame.url, frame.lineNumber);
      const key = `${name}\u0000${where}`;
      const entry = byFunction.get(key) ?? { name, where, selfMs: 0 };
      entry.selfMs += ms;
      byFunction.set(key, entry);
      busyMs += ms;
    });
  }
  const top = [...byFunction.values()].sort((a, b) => b.selfMs - a.selfMs).slice(0, count);
  return { files, busyMs, top };
}
