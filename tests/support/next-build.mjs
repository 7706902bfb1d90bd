// One `next build` for the whole `npm test`: the real-server suite (vitest's globalSetup) and the Playwright
// journeys (their webServer command) both call this, and it builds only when .next is missing or older than
// a source file, so whichever runs first builds and the other reuses it.
// Plain JavaScript so Playwright's webServer can run it with `node` before `next start`.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const buildId = path.join(root, ".next", "BUILD_ID");
const sourceDirs = ["app", "components", "lib", "public", "drizzle"];
const sourceFiles = ["next.config.ts", "instrumentation.ts", "package.json", "package-lock.json", "tsconfig.json", "postcss.config.mjs", "tailwind.config.ts"];
const skipped = new Set(["node_modules", "dist", ".next"]);

function newestMtime(entry) {
  if (!existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return /\.test\.tsx?$/.test(entry) ? 0 : stat.mtimeMs;
  let newest = 0;
  for (const name of readdirSync(entry)) if (!skipped.has(name)) newest = Math.max(newest, newestMtime(path.join(entry, name)));
  return newest;
}

/** Whether .next is missing or older than any source the build reads. */
export function isBuildStale() {
  if (!existsSync(buildId)) return true;
  const built = statSync(buildId).mtimeMs;
  return [...sourceDirs, ...sourceFiles].some((entry) => newestMtime(path.join(root, entry)) > built);
}

/** Compiles the SDK and runs `next build` unless .next is up to date. */
export function ensureNextBuild() {
  if (!isBuildStale()) return false;
  const started = Date.now();
  process.stderr.write("next build (sources changed since the last build)…\n");
  // The app bundles the workspace SDK from its compiled dist/ (as `npm run build` does).
  execFileSync("npm", ["run", "build", "-w", "@execution-network/client"], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  execFileSync(process.execPath, [path.join(root, "node_modules", "next", "dist", "bin", "next"), "build"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
  });
  process.stderr.write(`next build done in ${Math.round((Date.now() - started) / 1000)} s\n`);
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) ensureNextBuild();

/** As a vitest globalSetup (the real-server project). */
export default function setup() {
  ensureNextBuild();
}
