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
// When the last build began: a source saved while it ran is newer than this, though older than BUILD_ID.
const buildStarted = path.join(root, ".next", "build-started");
const sourceDirs = ["app", "components", "lib", "public", "drizzle", "types"];
const sourceFiles = ["next.config.ts", "instrumentation.ts", "proxy.ts", "package.json", "package-lock.json", "tsconfig.json", "postcss.config.mjs", "tailwind.config.ts"];
const skipped = new Set(["node_modules", "dist", ".next"]);

function newestMtime(entry) {
  if (!existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return /\.test\.tsx?$/.test(entry) ? 0 : stat.mtimeMs;
  // A folder's own time changes when a file in it is added, removed or renamed (a deleted loading.tsx).
  let newest = stat.mtimeMs;
  for (const name of readdirSync(entry)) if (!skipped.has(name)) newest = Math.max(newest, newestMtime(path.join(entry, name)));
  return newest;
}

/** Whether .next is missing or older than any source the build reads. */
export function isBuildStale() {
  if (!existsSync(buildId)) return true;
  const built = existsSync(buildStarted) ? Number(readFileSync(buildStarted, "utf8")) : statSync(buildId).mtimeMs;
  return [...sourceDirs, ...sourceFiles].some((entry) => newestMtime(path.join(root, entry)) > built);
}

/** Runs `npm run build` (the SDK, then `next build`) unless .next is up to date; `quiet` keeps its output. */
export function ensureNextBuild({ quiet = true } = {}) {
  if (!isBuildStale()) return false;
  const started = Date.now();
  process.stderr.write("next build (sources changed since the last build)…\n");
  execFileSync("npm", ["run", "build"], {
    cwd: root,
    stdio: ["ignore", quiet ? "ignore" : "inherit", "inherit"],
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
  });
  writeFileSync(buildStarted, String(started));
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
