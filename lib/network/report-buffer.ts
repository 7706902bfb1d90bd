// Coalesces what a running job has to report: one report in flight at a time, later ones merged, and a
// short delay before sending so that a fast job's reports ride along with its result instead.
import type { ProgressReport } from "@/lib/contract/node-protocol";

const isEmpty = (r: ProgressReport) => r.progress === undefined && !r.providerRequests?.length && !r.logs?.length;

export function mergeReports(a: ProgressReport, b: ProgressReport): ProgressReport {
  const progress =
    a.progress === undefined ? b.progress : b.progress === undefined ? a.progress : Math.max(a.progress, b.progress);
  return {
    ...(progress !== undefined ? { progress } : {}),
    ...(a.providerRequests || b.providerRequests
      ? { providerRequests: [...(a.providerRequests ?? []), ...(b.providerRequests ?? [])] }
      : {}),
    ...(a.logs || b.logs ? { logs: [...(a.logs ?? []), ...(b.logs ?? [])] } : {}),
  };
}

export class ReportBuffer {
  private pending: ProgressReport = {};
  private sending: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly send: (report: ProgressReport) => Promise<void>,
    private readonly delayMs = 100,
  ) {}

  add(report: ProgressReport): void {
    if (this.closed) return;
    this.pending = mergeReports(this.pending, report);
    this.timer ??= setTimeout(() => this.flush(), this.delayMs);
  }

  private flush(): void {
    this.timer = undefined;
    const batch = this.take();
    if (!isEmpty(batch)) this.sending = this.sending.then(() => this.send(batch));
  }

  private take(): ProgressReport {
    const batch = this.pending;
    this.pending = {};
    return batch;
  }

  /** Stops sending: waits for the report in flight and hands back what is left, for the final report. */
  async close(): Promise<ProgressReport> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.sending;
    return this.take();
  }
}
