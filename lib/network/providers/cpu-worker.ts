// Runs inside a worker thread of the CPU pool (cpu-pool.ts): one CPU-bound provider's run() per task.
// The context's calls are recorded and handed back with the outcome, so the node agent replays them.
import { languageDetect } from "./language-detect";
import { textSentiment } from "./text-sentiment";
import { textSummarize } from "./text-summarize";
import { tokenCount } from "./token-count";
import type { ServiceInput } from "@/lib/domain/catalog";
import type { LogLevel } from "@/lib/contract/vocabulary";
import { ProviderError, type Provider, type ProviderResult } from "./types";

export type CpuServiceId = "text-sentiment" | "text-summarize" | "language-detect" | "token-count";

const cpuProviders: { [S in CpuServiceId]: Provider<S> } = {
  "text-sentiment": textSentiment,
  "text-summarize": textSummarize,
  "language-detect": languageDetect,
  "token-count": tokenCount,
};

export type ContextCall =
  | { kind: "progress"; percent: number }
  | { kind: "providerRequest"; data: Record<string, unknown> }
  | { kind: "log"; level: LogLevel; message: string };

/** Runs the provider of S on input the main thread already parsed; or, with `warmUp`, loads its models. */
export type CpuTask<S extends CpuServiceId = CpuServiceId> =
  { serviceId: S; input: ServiceInput<S>; warmUp?: false } | { serviceId: S; warmUp: true };

export type CpuOutcome =
  | { ok: true; result: ProviderResult; calls: ContextCall[] }
  | { ok: false; error: { name: string; message: string; code?: string; retryable?: boolean }; calls: ContextCall[] };

export default async function runCpuTask<S extends CpuServiceId>(task: CpuTask<S>): Promise<CpuOutcome> {
  const calls: ContextCall[] = [];
  const provider: Provider<S> | undefined = cpuProviders[task.serviceId];
  try {
    if (!provider) throw new Error(`No CPU provider for ${task.serviceId}.`);
    if (task.warmUp) {
      await provider.warmUp?.();
      return { ok: true, result: { summary: "warm", output: {} }, calls };
    }
    const result = await provider.run(task.input, {
      // Cancellation is the pool's job: it aborts the task from the main thread.
      signal: new AbortController().signal,
      progress: (percent) => calls.push({ kind: "progress", percent }),
      providerRequest: (data) => calls.push({ kind: "providerRequest", data }),
      log: (level, message) => calls.push({ kind: "log", level, message }),
    });
    return { ok: true, result, calls };
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err));
    return {
      ok: false,
      error: {
        name: error.name,
        message: error.message,
        ...(error instanceof ProviderError ? { code: error.code, retryable: error.retryable } : {}),
      },
      calls,
    };
  }
}
