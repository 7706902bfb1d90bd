// `npm run build` only when .next is missing or older than a source file. `npm start` runs it, so a restart
// (after a crash, say) serves at once instead of building again; within `npm test` the real-server suites
// (vitest's globalSetup) and the Playwright journeys (their webServer command) share one build this way.
// Plain JavaScript: it runs with `node` before anything else is compiled.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const buildId = path.join(root, ".next", "BUILD_ID");
// What the last build read: when it began (a source saved while it ran is newer than that, though older
// than BUILD_ID) and which source files there were (a deleted or renamed file changes the list).
const buildSources = path.join(root, ".next", "build-sources.json");
const sourceDirs = ["app", "components", "lib", "public", "drizzle", "types"];
const sourceFiles = [
  "next.config.ts",
  "instrumentation.ts",
  "proxy.ts",
  "package.json",
  "package-lock.json",
  "tsconfig.json",
  "postcss.config.mjs",
  "tailwind.config.ts",
];
const skipped = new Set(["node_modules", "dist", ".next"]);

/** Every source file the build reads (tests excluded), with its modification time. */
function sourceFilesOf(entry, found = []) {
  if (!existsSync(entry)) return found;
  const stat = statSync(entry);
  if (!stat.isDirectory()) {
    if (!/\.test\.tsx?$/.test(entry)) found.push({ file: path.relative(root, entry), mtimeMs: stat.mtimeMs });
    return found;
  }
  for (const name of readdirSync(entry).sort()) if (!skipped.has(name)) sourceFilesOf(path.join(entry, name), found);
  return found;
}

const currentSources = () => [...sourceDirs, ...sourceFiles].flatMap((entry) => sourceFilesOf(path.join(root, entry)));

/** Whether .next is missing, or a source file was saved since the last build began, added or removed. */
export function isBuildStale() {
  if (!existsSync(buildId)) return true;
  const sources = currentSources();
  if (!existsSync(buildSources)) return sources.some((s) => s.mtimeMs > statSync(buildId).mtimeMs);
  const built = JSON.parse(readFileSync(buildSources, "utf8"));
  return (
    sources.some((s) => s.mtimeMs > built.startedMs) || sources.map((s) => s.file).join("\n") !== built.files.join("\n")
  );
}

/** Runs `npm run build` (the SDK, then `next build`) unless .next is up to date; `quiet` keeps its output. */
export function ensureNextBuild({ quiet = true } = {}) {
  if (!isBuildStale()) return false;
  const started = Date.now();
  const files = currentSources().map((s) => s.file);
  process.stderr.write("next build (sources changed since the last build)…\n");
  execFileSync("npm", ["run", "build"], {
    cwd: root,
    stdio: ["ignore", quiet ? "ignore" : "inherit", "inherit"],
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
  });
  writeFileSync(buildSources, JSON.stringify({ startedMs: started, files }));
  process.stderr.write(`next build done in ${Math.round((Date.now() - started) / 1000)} s\n`);
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    ensureNextBuild({ quiet: !process.argv.includes("--verbose") });
  } catch {
    // npm has printed why the build failed.
    process.exit(1);
  }
}

/** As a vitest globalSetup (the real-server project). */
export default function setup() {
  ensureNextBuild();
}
