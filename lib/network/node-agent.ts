// The execution node agent: registers, heart-beats, claims work within its concurrency, runs providers
// with a per-job timeout, reports progress, results and failures, and shuts down gracefully.
import { nextProgress } from "@/lib/engine/job-machine";
import { createLogger, type Logger } from "@/lib/log";
import type { ClaimedJob, ExecutionFailure } from "@/lib/contract/node-protocol";
import { inSpan, jobAttributes, SpanKind, SpanStatusCode, tracingOn, type Span } from "@/lib/tracing";
import { ProviderError, type WireProvider } from "./providers/types";
import { ReportBuffer } from "./report-buffer";
import { JobRevokedError, NodeTokenRefusedError, type CoordinatorTransport, type NodeSessionInfo } from "./transport";
import { sleep } from "./sleep";

export interface NodeAgentOptions {
  name: string;
  region?: string;
  concurrency: number;
  providers: Partial<Record<string, WireProvider>>;
  /** Longest wait of one claim long-poll. */
  claimWaitMs?: number;
  logger?: Logger;
  /**
   * Called once when the coordinator refuses the node's token (revoked or rotated from the dashboard): the
   * agent has stopped claiming and abandoned its jobs (the coordinator already gave them back).
   */
  onTokenRefused?: (error: NodeTokenRefusedError) => void;
}

interface RunningJob {
  job: ClaimedJob;
  controller: AbortController;
  /** Set when the coordinator revoked the job (cancelled, or lease lost): nothing more is reported. */
  revoked: boolean;
  finished: Promise<void>;
}

export class NodeAgent {
  private session?: NodeSessionInfo;
  private readonly running = new Map<string, RunningJob>();
  private readonly stopping = new AbortController();
  /** Aborted once stop() has finished or released every running job: heartbeats go on until then. */
  private readonly stopped = new AbortController();
  private loops: Promise<void>[] = [];
  private slotFreed?: () => void;
  private readonly log: Logger;

  constructor(
    private readonly transport: CoordinatorTransport,
    private readonly options: NodeAgentOptions,
  ) {
    this.log = (options.logger ?? createLogger()).child({ component: "node", node: options.name });
  }

  get nodeId(): string | undefined {
    return this.session?.nodeId;
  }

  get activeJobIds(): string[] {
    return [...this.running.keys()];
  }

  async start(): Promise<NodeSessionInfo> {
    const serviceIds = Object.keys(this.options.providers);
    this.session = await this.transport.register({
      name: this.options.name,
      region: this.options.region ?? "local",
      serviceIds,
      concurrency: this.options.concurrency,
    });
    this.log.info("node registered", {
      nodeId: this.session.nodeId,
      serviceIds,
      concurrency: this.options.concurrency,
    });
    this.loops = [this.heartbeatLoop(this.session.heartbeatIntervalMs), this.claimLoop()];
    return this.session;
  }

  /** Graceful shutdown: stop claiming, let running jobs finish within `graceMs`, release the rest. */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.stopping.signal.aborted) return;
    this.stopping.abort();
    this.slotFreed?.();
    await this.transport.drain().catch((err: unknown) => this.log.warn("drain failed", { err }));
    const all = Promise.all([...this.running.values()].map((r) => r.finished));
    const timedOut = await Promise.race([all.then(() => false), sleep(graceMs).then(() => true)]);
    if (timedOut) {
      for (const r of this.running.values()) {
        r.revoked = true;
        r.controller.abort(new Error("node shutting down"));
        await this.transport.release(r.job.jobId, r.job.attempt, "node shutting down").catch(() => undefined);
      }
    }
    this.stopped.abort();
    await Promise.allSettled(this.loops);
    // Said last, once nothing more will be sent: the node then shows offline instead of lost.
    await this.transport.stop().catch((err: unknown) => this.log.warn("stop report failed", { err }));
    this.log.info("node stopped", { released: timedOut ? this.running.size : 0 });
  }

  // A draining node keeps its leases alive while it finishes its jobs (a grace period longer than the lease
  // must not turn them into NODE_LOST); it stops once stop() is done with them.
  private async heartbeatLoop(intervalMs: number): Promise<void> {
    while (!this.stopped.signal.aborted) {
      await sleep(intervalMs, this.stopped.signal);
      if (this.stopped.signal.aborted || (this.stopping.signal.aborted && this.running.size === 0)) break;
      try {
        const { cancelJobIds } = await this.transport.heartbeat(this.activeJobIds);
        for (const id of cancelJobIds) this.revoke(id, "the coordinator no longer assigns it to this node");
      } catch (err) {
        if (err instanceof NodeTokenRefusedError) return this.tokenRefused(err);
        this.log.warn("heartbeat failed", { err });
      }
    }
  }

  private async claimLoop(): Promise<void> {
    let failures = 0;
    while (!this.stopping.signal.aborted) {
      const free = this.options.concurrency - this.running.size;
      if (free <= 0) {
        await new Promise<void>((resolve) => (this.slotFreed = resolve));
        continue;
      }
      try {
        const jobs = await this.transport.claim(free, this.options.claimWaitMs ?? 20_000, this.stopping.signal);
        failures = 0;
        for (const job of jobs) this.launch(job);
      } catch (err) {
        if (this.stopping.signal.aborted) break;
        if (err instanceof NodeTokenRefusedError) return this.tokenRefused(err);
        failures++;
        this.log.warn("claim failed", { err, failures });
        await sleep(Math.min(10_000, 200 * 2 ** failures), this.stopping.signal);
      }
    }
  }

  /**
   * A refused token ends the node: retrying cannot succeed, and the jobs it holds were given back to be
   * routed again, so they are stopped here without a report.
   */
  private tokenRefused(error: NodeTokenRefusedError): void {
    if (this.stopped.signal.aborted) return;
    this.log.error("the coordinator refused this node's token (revoked or rotated): stopping", { err: error });
    this.stopping.abort();
    for (const id of this.running.keys()) this.revoke(id, "the node's token was refused");
    this.stopped.abort();
    this.slotFreed?.();
    this.options.onTokenRefused?.(error);
  }

  private revoke(jobId: string, why: string): void {
    const r = this.running.get(jobId);
    if (!r || r.revoked) return;
    r.revoked = true;
    r.controller.abort(new JobRevokedError("LEASE_LOST", why));
    this.log.info("job revoked", { jobId, why });
  }

  private launch(job: ClaimedJob): void {
    const controller = new AbortController();
    const entry: RunningJob = { job, controller, revoked: false, finished: Promise.resolve() };
    this.running.set(job.jobId, entry);
    entry.finished = this.execute(entry)
      .catch((err: unknown) => {
        if (!(err instanceof JobRevokedError)) this.log.error("job report failed", { jobId: job.jobId, err });
      })
      .finally(() => {
        this.running.delete(job.jobId);
        this.slotFreed?.();
      });
  }

  /** With tracing on and a claim that carried its trace, the execution is a span in the job's trace. */
  private execute(entry: RunningJob): Promise<void> {
    const { job } = entry;
    if (!tracingOn || !job.traceparent) return this.run(entry);
    const attributes = jobAttributes({
      jobId: job.jobId,
      serviceId: job.serviceId,
      nodeId: this.session?.nodeId,
      attempt: job.attempt,
    });
    return inSpan("execute job", { kind: SpanKind.CONSUMER, parent: job.traceparent, attributes }, (span) =>
      this.run(entry, span),
    );
  }

  private async run(entry: RunningJob, span?: Span): Promise<void> {
    const { job, controller } = entry;
    const fail = (failure: ExecutionFailure) => {
      span?.setStatus({ code: SpanStatusCode.ERROR, message: failure.code });
      return this.transport.fail(job.jobId, job.attempt, failure);
    };
    const provider = this.options.providers[job.serviceId];
    if (!provider) {
      await fail({
        code: "SERVICE_UNSUPPORTED",
        message: `This node cannot run ${job.serviceId}.`,
        retryable: true,
      });
      return;
    }
    if (!this.transport.startsOnClaim) await this.transport.start(job.jobId, job.attempt);

    // Reports leave one at a time, in order; a refused report revokes the job.
    let progress = 0;
    const reports = new ReportBuffer((r) =>
      entry.revoked
        ? Promise.resolve()
        : this.transport.progress(job.jobId, job.attempt, r).catch((err: unknown) => {
            if (err instanceof JobRevokedError) this.revoke(job.jobId, err.message);
            else this.log.warn("progress report failed", { jobId: job.jobId, err });
          }),
    );
    const timeout = AbortSignal.timeout(job.timeoutMs);
    const signal = AbortSignal.any([controller.signal, timeout]);
    try {
      const result = await provider.run(job.input, {
        signal,
        progress: (p) => {
          const next = nextProgress(progress, p);
          if (next > progress) reports.add({ progress: (progress = next) });
        },
        providerRequest: (data) => reports.add({ providerRequests: [data] }),
        log: (level, message) => reports.add({ logs: [{ level, message }] }),
      });
      const unreported = await reports.close();
      if (entry.revoked) return;
      signal.throwIfAborted();
      await this.transport.complete(job.jobId, job.attempt, result, unreported);
    } catch (error) {
      const unreported = await reports.close();
      if (entry.revoked) return;
      if (unreported.providerRequests?.length || unreported.logs?.length) {
        await this.transport.progress(job.jobId, job.attempt, unreported).catch(() => undefined);
      }
      if (timeout.aborted) {
        await fail({
          code: "TIMEOUT",
          message: `The job exceeded its ${job.timeoutMs} ms timeout.`,
          retryable: true,
        });
      } else if (error instanceof ProviderError) {
        await fail({
          code: error.code,
          message: error.message,
          retryable: error.retryable,
        });
      } else if (error instanceof JobRevokedError) {
        this.revoke(job.jobId, error.message);
      } else {
        const message = error instanceof Error ? error.message : String(error);
        await fail({ code: "PROVIDER_CRASHED", message, retryable: true });
      }
    }
  }
}
