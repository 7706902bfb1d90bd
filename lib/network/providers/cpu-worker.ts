// Runs inside a worker thread of the CPU pool (cpu-pool.ts): one CPU-bound provider's run() per task.
// The context's calls are recorded and handed back with the outcome, so the node agent replays them.
import { languageDetect } from "./language-detect";
import { textSentiment } from "./text-sentiment";
import { textSummarize } from "./text-summarize";
import { tokenCount } from "./token-count";
import type { LogLevel } from "@/lib/contract/vocabulary";
import { ProviderError, type Provider, type ProviderResult } from "./types";

const cpuProviders: Record<string, Provider> = {
  "text-sentiment": textSentiment,
  "text-summarize": textSummarize,
  "language-detect": languageDetect,
  "token-count": tokenCount,
};

export type ContextCall =
  | { kind: "progress"; percent: number }
  | { kind: "providerRequest"; data: Record<string, unknown> }
  | { kind: "log"; level: LogLevel; message: string };

export interface CpuTask {
  serviceId: string;
  input: Record<string, unknown>;
  /** Load the provider's models in this thread instead of running it. */
  warmUp?: boolean;
}

export type CpuOutcome =
  | { ok: true; result: ProviderResult; calls: ContextCall[] }
  | { ok: false; error: { name: string; message: string; code?: string; retryable?: boolean }; calls: ContextCall[] };

export default async function runCpuTask(task: CpuTask): Promise<CpuOutcome> {
  const calls: ContextCall[] = [];
  const provider = cpuProviders[task.serviceId];
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
