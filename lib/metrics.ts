// The Prometheus metrics of this process (CONTRACT §14), with prom-client: counters and histograms of what
// this instance did since it started (Prometheus sums the instances), and the deployment-wide gauges, set
// from one database read per scrape (lib/operator/metrics.ts). Labels are bounded sets only: a service id of
// the catalog, a status, an outcome, a method, a route pattern, a status code; never a key, an address or an id.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { activeStatuses } from "@/lib/contract/vocabulary";
import { processState } from "@/lib/singleton";

/** Seconds, from a fast token count (a few ms) to a job near its timeout (minutes). */
const jobBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const metric = <T>(make: (registers: Registry[]) => T) => make([registry]);
  const m = {
    registry,
    jobsSubmitted: metric(
      (registers) =>
        new Counter({
          name: "execution_jobs_submitted_total",
          help: "Jobs accepted by this instance.",
          labelNames: ["service"] as const,
          registers,
        }),
    ),
    jobsFinished: metric(
      (registers) =>
        new Counter({
          name: "execution_jobs_finished_total",
          help: "Jobs this instance moved to a final status (completed or failed).",
          labelNames: ["service", "status"] as const,
          registers,
        }),
    ),
    queueSeconds: metric(
      (registers) =>
        new Histogram({
          name: "execution_job_queue_seconds",
          help: "From submission to execution started, per attempt started on this instance.",
          labelNames: ["service"] as const,
          buckets: jobBuckets,
          registers,
        }),
    ),
    runSeconds: metric(
      (registers) =>
        new Histogram({
          name: "execution_job_run_seconds",
          help: "From execution started to the final status, per job finished on this instance.",
          labelNames: ["service"] as const,
          buckets: jobBuckets,
          registers,
        }),
    ),
    jobsActive: metric(
      (registers) =>
        new Gauge({
          name: "execution_jobs_active",
          help: "Jobs of the whole deployment in each non-final status (read from the database at scrape).",
          labelNames: ["status"] as const,
          registers,
        }),
    ),
    nodesLive: metric(
      (registers) =>
        new Gauge({
          name: "execution_nodes_live",
          help: "Live execution nodes of the whole deployment (read from the database at scrape).",
          registers,
        }),
    ),
    webhookDeliveries: metric(
      (registers) =>
        new Counter({
          name: "execution_webhook_deliveries_total",
          help: "Webhook delivery attempts sent by this instance, by outcome (retried: failed, tried again later).",
          labelNames: ["outcome"] as const,
          registers,
        }),
    ),
    creditsCharged: metric(
      (registers) =>
        new Counter({
          name: "execution_credits_charged_total",
          help: "Credits charged for jobs accepted by this instance (before any refund).",
          registers,
        }),
    ),
    x402SettlementsReplaced: metric(
      (registers) =>
        new Counter({
          name: "execution_x402_settlements_replaced_total",
          help: "Pay-per-call settlements not mined in time, replaced at their settler nonce with a higher fee (kind: the same settlement, or a 0-value filler once its authorization expired).",
          labelNames: ["kind"] as const,
          registers,
        }),
    ),
    x402SettlerBalance: metric(
      (registers) =>
        new Gauge({
          name: "execution_x402_settler_balance_wei",
          help: "The pay-per-call settler's ETH balance in wei (read from the payments RPC at scrape, at most once per PAYMENTS_POLL_MS; absent while it does not answer or x402 is off).",
          registers,
        }),
    ),
    x402TransferLogContradicted: metric(
      (registers) =>
        new Gauge({
          name: "execution_x402_transfer_log_contradicted",
          help: "1 when this instance's own pay-per-call settlements show the token's Transfer log on the other side of its AuthorizationUsed log than X402_TRANSFER_LOG says (uses someone else submitted are then not judged), 0 when they agree; absent before one is seen or with x402 off.",
          registers,
        }),
    ),
    requestDuration: metric(
      (registers) =>
        new Histogram({
          name: "http_server_request_duration_seconds",
          help: "Duration of HTTP server requests (OpenTelemetry semantic conventions).",
          labelNames: ["http_request_method", "http_route", "http_response_status_code"] as const,
          buckets: [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10],
          registers,
        }),
    ),
  };
  // Every outcome has a series from the start, so a rate over it is 0 rather than absent.
  for (const outcome of ["succeeded", "failed", "retried"]) m.webhookDeliveries.inc({ outcome }, 0);
  for (const kind of ["settlement", "filler"]) m.x402SettlementsReplaced.inc({ kind }, 0);
  return m;
}

/** One set per process, whichever bundle of this module counts or scrapes. */
export const metrics = () => processState("metrics", createMetrics);

export interface DeploymentGauges {
  /** Jobs per non-final status; a status without jobs may be missing. */
  activeJobs: Partial<Record<string, number>>;
  liveNodes: number;
}

/** The gauges as the database last told them: every non-final status gets a series, 0 when it has no jobs. */
export function setDeploymentGauges({ activeJobs, liveNodes }: DeploymentGauges): void {
  const m = metrics();
  for (const status of activeStatuses) m.jobsActive.set({ status }, activeJobs[status] ?? 0);
  m.nodesLive.set(liveNodes);
}

/** The settler's balance as last read (undefined: not known, so no series rather than a stale or made-up one). */
export function setSettlerBalance(wei: bigint | undefined): void {
  const gauge = metrics().x402SettlerBalance;
  if (wei === undefined) gauge.reset();
  else gauge.set(Number(wei));
}

export function setTransferLogContradicted(state: "ok" | "contradicted" | "unchecked" | undefined): void {
  const gauge = metrics().x402TransferLogContradicted;
  if (state === undefined || state === "unchecked") gauge.reset();
  else gauge.set(state === "contradicted" ? 1 : 0);
}

/** Job timing: seconds between two of its timestamps, when both are known. */
export const secondsBetween = (from: Date | null, to: Date | null) =>
  from && to ? Math.max(0, (to.getTime() - from.getTime()) / 1000) : undefined;
