// Builds the node package from the product's own sources (lib/network and what it imports, through the
// project's "@/…" paths): the command and the CPU pool's worker, each one ES module. The packages the
// workloads load at run time (models, workers, data) stay dependencies, installed beside it.
import { rmSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import packageJson from "./package.json" with { type: "json" };

const here = import.meta.dirname;
const external = Object.keys(packageJson.dependencies).flatMap((name) => [name, `${name}/*`]);

rmSync(path.join(here, "dist"), { recursive: true, force: true });
await build({
  entryPoints: {
    cli: path.join(here, "src/cli.ts"),
    "cpu-worker": path.join(here, "../network/providers/cpu-worker.ts"),
  },
  outdir: path.join(here, "dist"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  tsconfig: path.join(here, "../../tsconfig.json"),
  external,
  // What the bundle takes in besides our code is CommonJS that may call require (drizzle-orm's error class).
  banner: {
    js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
  },
  logLevel: "warning",
});
