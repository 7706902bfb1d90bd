// What a provider is: the code a node runs for one service. Providers are pure workload code; the node
// agent owns leases, reporting and timeouts.
import type { ServiceId } from "@/lib/domain/catalog";
import type { LogLevel } from "@/lib/contract/vocabulary";

export interface ProviderResult {
  /** One human sentence about the outcome. */
  summary: string;
  /** The structured result. */
  output: Record<string, unknown>;
}

export interface ProviderContext {
  /** Aborted on job timeout, cancellation or node shutdown: stop work promptly. */
  signal: AbortSignal;
  /** Reports progress 0–100 (never decreasing within an attempt; the agent enforces it). */
  progress(percent: number): void;
  /** Records a PROVIDER_REQUEST telemetry event (a call to a model or an external endpoint). */
  providerRequest(data: Record<string, unknown>): void;
  log(level: LogLevel, message: string): void;
}

export interface Provider {
  serviceId: ServiceId;
  /** Input has already been validated against the catalog schema of the service. */
  run(input: Record<string, unknown>, ctx: ProviderContext): Promise<ProviderResult>;
  /** Optional warm-up (load models, start workers) and shutdown. */
  warmUp?(): Promise<void>;
  close?(): Promise<void>;
}

/** A failure of the workload itself. `retryable` decides between retrying and failing at once. */
export class ProviderError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}
