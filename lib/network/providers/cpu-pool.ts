// CPU-bound providers run in a worker-thread pool (piscina), never on the server's event loop: a heavy
// job can occupy a worker, not stall HTTP. The worker (cpu-worker.ts) is TypeScript loaded through tsx,
// from the project root, the same way under `next start`, vitest and `tsx scripts/node.ts` (the node
// package runs its build of the same file: files.ts).
import { Piscina } from "piscina";
import { limits } from "@/lib/limits";
import type { ServiceInput } from "@/lib/domain/catalog";
import { providerFiles } from "./files";
import type { CpuOutcome, CpuServiceId, CpuTask } from "./cpu-worker";
import { ProviderError, type Provider, type ProviderContext } from "./types";

const poolKey = Symbol.for("execution-network.cpu-pool");
type GlobalWithPool = typeof globalThis & { [poolKey]?: Piscina<CpuTask, CpuOutcome> };

function cpuPool(): Piscina<CpuTask, CpuOutcome> {
  const g = globalThis as GlobalWithPool;
  const { cpuWorker, cpuWorkerExecArgv } = providerFiles();
  g[poolKey] ??= new Piscina<CpuTask, CpuOutcome>({
    filename: cpuWorker,
    execArgv: cpuWorkerExecArgv,
    minThreads: 1,
    maxThreads: limits.providerThreads,
    idleTimeout: 60_000,
  });
  return g[poolKey];
}

export async function closeCpuPool(): Promise<void> {
  const g = globalThis as GlobalWithPool;
  const pool = g[poolKey];
  delete g[poolKey];
  await pool?.destroy();
}

/** Tasks the pool has run since it started (0 before it has): which work went to a worker. */
export function tasksRunInPool(): number {
  return (globalThis as GlobalWithPool)[poolKey]?.completed ?? 0;
}

function replay(outcome: CpuOutcome, ctx: ProviderContext): void {
  for (const call of outcome.calls) {
    if (call.kind === "progress") ctx.progress(call.percent);
    else if (call.kind === "providerRequest") ctx.providerRequest(call.data);
    else ctx.log(call.level, call.message);
  }
}

export interface CpuPoolOptions<S extends CpuServiceId> {
  /**
   * Input whose work is bounded so small that handing it to a worker (a message each way, a structured clone,
   * the pool's bookkeeping: a few hundred microseconds of this thread) costs more than running it here.
   */
  runsHere?: (input: ServiceInput<S>) => boolean;
}

/**
 * The same provider, its run() executed in the CPU pool (cancellation aborts the task), except for input
 * `runsHere` says is cheaper to run on this thread.
 */
export function inCpuPool<S extends CpuServiceId>(provider: Provider<S>, options: CpuPoolOptions<S> = {}): Provider<S> {
  return {
    serviceId: provider.serviceId,
    async warmUp() {
      const outcome = await cpuPool().run({ serviceId: provider.serviceId, warmUp: true });
      if (!outcome.ok) throw new Error(outcome.error.message);
      if (options.runsHere) await provider.warmUp?.();
    },
    async run(input, ctx) {
      ctx.signal.throwIfAborted();
      if (options.runsHere?.(input)) return provider.run(input, ctx);
      const task: CpuTask<S> = { serviceId: provider.serviceId, input };
      const outcome = await cpuPool().run(task, { signal: ctx.signal });
      replay(outcome, ctx);
      if (outcome.ok) return outcome.result;
      const { code, retryable, message, name } = outcome.error;
      if (code !== undefined && retryable !== undefined) throw new ProviderError(code, message, retryable);
      throw Object.assign(new Error(message), { name });
    },
    close: closeCpuPool,
  };
}
