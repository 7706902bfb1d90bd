#!/usr/bin/env node
// The package's command, `npx @execution-network/node`: the built providers find their worker and their
// model packages beside this file, wherever the package is installed.
import path from "node:path";
import { locateProviderFiles } from "@/lib/network/providers/files";
import packageJson from "../package.json" with { type: "json" };
import { runNode } from "./run-node";

const dist = import.meta.dirname;
locateProviderFiles({
  resolveFrom: path.dirname(dist),
  cpuWorker: path.join(dist, "cpu-worker.js"),
  cpuWorkerExecArgv: [],
});

runNode(process.argv.slice(2), packageJson.version).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
