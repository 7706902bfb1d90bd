// Where the providers find their files at run time: the CPU pool's worker module and the packages holding
// model data. From a checkout (next start, vitest, tsx) that is the project root and the TypeScript worker
// loaded through tsx; the node package (lib/node) points both at its own built files before it starts.
import path from "node:path";

export interface ProviderFiles {
  /** A folder whose node_modules (or an ancestor's) hold the model packages, e.g. @tesseract.js-data/eng. */
  resolveFrom: string;
  /** The CPU pool's worker module (cpu-worker.ts, or its build) and the arguments its threads start with. */
  cpuWorker: string;
  cpuWorkerExecArgv: string[];
}

let located: ProviderFiles | undefined;

export function providerFiles(): ProviderFiles {
  located ??= {
    resolveFrom: process.cwd(),
    cpuWorker: path.join(process.cwd(), "lib", "network", "providers", "cpu-worker.ts"),
    cpuWorkerExecArgv: ["--import", "tsx"],
  };
  return located;
}

/** Called once, before any provider runs, by a build that does not run from the project root. */
export function locateProviderFiles(files: ProviderFiles): void {
  located = files;
}
