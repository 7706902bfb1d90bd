// What a provider is: the code a node runs for one service. Providers are pure workload code; the node
// agent owns leases, reporting and timeouts.
import type { ServiceId, ServiceInput } from "@/lib/domain/catalog";
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

/** The provider of service S: it receives S's input as the catalog schema parsed it. */
export interface Provider<S extends ServiceId> {
  serviceId: S;
  run(input: ServiceInput<S>, ctx: ProviderContext): Promise<ProviderResult>;
  /** Optional warm-up (load models, start workers) and shutdown. */
  warmUp?(): Promise<void>;
  close?(): Promise<void>;
}

/** A provider as the node agent holds it: it takes a claimed job's input as it came over the wire and
 * parses it with the service's schema before the provider sees it (available.ts). */
export interface WireProvider extends Omit<Provider<ServiceId>, "run"> {
  run(input: Record<string, unknown>, ctx: ProviderContext): Promise<ProviderResult>;
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
