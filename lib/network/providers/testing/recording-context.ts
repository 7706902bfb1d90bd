// A ProviderContext for tests that records what a provider reports, as the node agent would receive it.
import type { LogLevel } from "@/lib/contract/vocabulary";
import type { ProviderContext } from "../types";

export interface RecordingContext extends ProviderContext {
  progressReports: number[];
  providerRequests: Record<string, unknown>[];
  logs: { level: LogLevel; message: string }[];
}

export function recordingContext(signal: AbortSignal = new AbortController().signal): RecordingContext {
  const progressReports: number[] = [];
  const providerRequests: Record<string, unknown>[] = [];
  const logs: { level: LogLevel; message: string }[] = [];
  return {
    signal,
    progressReports,
    providerRequests,
    logs,
    progress: (percent) => progressReports.push(percent),
    providerRequest: (data) => providerRequests.push(data),
    log: (level, message) => logs.push({ level, message }),
  };
}

/** A signal that is already aborted, as after a cancellation that raced the job's start. */
export function abortedSignal(reason = new Error("cancelled by the test")): AbortSignal {
  const controller = new AbortController();
  controller.abort(reason);
  return controller.signal;
}

/** True when the numbers never go down. */
export const isNonDecreasing = (values: number[]) => values.every((v, i) => i === 0 || v >= values[i - 1]);
