// `npm run bench -- --observability`: what watching the product costs (issue 44, item 3). The product's phase
// (bench/product.ts: server.mjs, a fresh database, steady arrivals then a burst drained by the embedded nodes)
// on this tree, paired: once with nothing observing it, once with /api/metrics scraped every second and traces
// exported over OTLP/HTTP to a local receiver, in turn off-on then on-off for `rounds` rounds, so a drift of the
// machine's speed hits both alike. Each server is measured fresh, then (`--warmup-jobs`) again after that many
// unmeasured jobs, warmed: a production server is long-lived, and V8 optimises the SDK's hot paths as it does
// ours. The report gives each round's ratios and their median, fresh and warmed.
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import type { ProductOptions } from "./product";
import type { MeasuredPhases, ProductResult } from "./results";

/**
 * What "on" turns on. `on` is the aim's pairing (scraped and traced); the others split its cost by phase, each
 * against the same round's `off` (`--observed on,metrics,traces,…`): scraping alone, tracing alone, tracing whose
 * batches are never exported while the server runs (the batch processor's delay and queue made larger than the
 * run: span creation and recording without serialization or sending), and tracing with the sampler off (the SDK
 * loaded, contexts propagated, spans created unrecorded); `on-json` is `on` exporting OTLP/HTTP JSON instead of the
 * default protobuf.
 */
export const variants = {
  on: { scrape: true, traces: {} },
  metrics: { scrape: true, traces: undefined },
  traces: { scrape: false, traces: {} },
  "traces-unexported": {
    scrape: false,
    traces: {
      OTEL_BSP_SCHEDULE_DELAY: "3600000",
      OTEL_BSP_MAX_QUEUE_SIZE: "1000000",
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "1000000",
    },
  },
  "traces-unsampled": { scrape: false, traces: { OTEL_TRACES_SAMPLER: "always_off" } },
  "on-json": { scrape: true, traces: { OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" } },
} satisfies Record<string, { scrape: boolean; traces?: Record<string, string> }>;
export type Variant = keyof typeof variants;
export type Observed = "off" | Variant;

export function parseVariants(list: string): Variant[] {
  const names = list
    .split(",")
    .map((n) => n.trim())
    .filter(Boolean);
  for (const name of names)
    if (!(name in variants)) throw new Error(`--observed: ${name} is not one of ${Object.keys(variants).join(", ")}`);
  return names as Variant[];
}

export interface ObservedRound {
  off: ProductResult;
  /** Each variant run this round (`on` by default). */
  observed: Partial<Record<Variant, ProductResult>>;
  /** Metrics scrapes answered 200 while the observed servers ran. */
  scrapes: number;
  /** OTLP export requests the receiver took from them. */
  exports: number;
  loadAverage: { before: number; after: number };
}

/** A receiver that takes OTLP/HTTP exports (any encoding) and counts them, as a collector on the host would. */
async function startCountingReceiver() {
  let exports = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      exports += 1;
      res.writeHead(200, { "content-type": req.headers["content-type"] ?? "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: () => exports,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** GET /api/metrics every second until stopped; counts the 200s. */
function scrapeEverySecond(baseUrl: string, token: string, scraped: () => void): () => Promise<void> {
  let stopped = false;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (!stopped) {
      const res = await fetch(`${baseUrl}/api/metrics`, { headers: { authorization: `Bearer ${token}` } }).catch(
        () => undefined,
      );
      if (res?.status === 200) scraped();
      await res?.text().catch(() => undefined);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1000);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();
  return async () => {
    stopped = true;
    wake?.();
    await loop;
  };
}

export async function benchObservability(
  rounds: number,
  chosen: Variant[],
  product: (observed: Observed, extra: Pick<ProductOptions, "env" | "alongside">) => Promise<ProductResult>,
): Promise<ObservedRound[]> {
  const receiver = await startCountingReceiver();
  const token = randomBytes(24).toString("hex");
  const results: ObservedRound[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const before = os.loadavg()[0];
      let scrapes = 0;
      const exportsBefore = receiver.count();
      // In turn off first and off last, so a drift of the machine's speed hits both sides alike.
      const order: Observed[] = round % 2 === 0 ? ["off", ...chosen] : [...[...chosen].reverse(), "off"];
      const measured: Partial<Record<Observed, ProductResult>> = {};
      for (const observed of order) {
        const variant = observed === "off" ? undefined : variants[observed];
        measured[observed] = await product(observed, {
          env: {
            ...(variant?.scrape ? { METRICS_TOKEN: token } : {}),
            ...(variant?.traces ? { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, ...variant.traces } : {}),
          },
          alongside: variant?.scrape ? (baseUrl) => scrapeEverySecond(baseUrl, token, () => (scrapes += 1)) : undefined,
        });
      }
      const { off, ...observed } = measured;
      results.push({
        off: off as ProductResult,
        observed,
        scrapes,
        exports: receiver.count() - exportsBefore,
        loadAverage: { before, after: os.loadavg()[0] },
      });
    }
  } finally {
    await receiver.close();
  }
  return results;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
/** The server's CPU per job of the burst, in ms. */
const cpuMsPerJob = (r: MeasuredPhases) => (r.burst.cpu.server / 100) * r.burst.cpu.seconds * (1000 / r.burst.jobs);
/**
 * The drain's CPU per job of the burst, in ms: the server and its database's PostgreSQL backends, the two that
 * share the cores and bound jobs/s on a saturated machine (observing adds work only to the first). NaN on PGlite.
 */
const drainCpuMsPerJob = (r: MeasuredPhases) =>
  ((r.burst.cpu.server + r.burst.cpu.postgres) / 100) * r.burst.cpu.seconds * (1000 / r.burst.jobs);

const x = (n: number) => `${n.toFixed(2)}×`;

/** Each variant's ratios to its round's `off`, per round, and their medians. */
function variantLines(rounds: ObservedRound[]): string[] {
  const chosen = Object.keys(rounds[0]?.observed ?? {}) as Variant[];
  if (chosen.length === 0) return [];
  const rows = chosen.map((variant) => {
    const pairs = rounds.flatMap((r) => (r.observed[variant] ? [[r.off, r.observed[variant]] as const] : []));
    const jobs = pairs.map(([off, on]) => on.burst.jobsPerSecond / off.burst.jobsPerSecond);
    const cpu = pairs.map(([off, on]) => cpuMsPerJob(on) / cpuMsPerJob(off));
    return (
      `| ${variant} | ${jobs.map(x).join(", ")} | **${x(median(jobs))}** | ${cpu.map(x).join(", ")} | ` +
      `**${x(median(cpu))}** | ${pairs.map(([, on]) => cpuMsPerJob(on).toFixed(2)).join(", ")} |`
    );
  });
  return [
    "",
    "Each variant against the same round's off (`on`: scraped and traced; `metrics`: scraped only; `traces`: traced only; " +
      "`traces-unexported`: traced, batches held until the server stops; `traces-unsampled`: the sampler off; " +
      "`on-json`: `on` with `OTEL_EXPORTER_OTLP_PROTOCOL=http/json`):",
    "",
    "| variant | jobs/s on/off per round | median | server CPU per job on/off per round | median | CPU ms/job |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows,
    ...profileLines(rounds, chosen),
  ];
}

/** `--profile`: the burst's sampled self time per job by owner (package, V8's own work, our bundles), summed over rounds. */
function profileLines(rounds: ObservedRound[], chosen: Variant[]): string[] {
  const columns: Observed[] = ["off", ...chosen];
  const perJob = new Map<string, Partial<Record<Observed, number>>>();
  for (const column of columns) {
    const results = rounds.flatMap((r) => {
      const result = column === "off" ? r.off : r.observed[column];
      return result?.profileByOwner ? [result] : [];
    });
    const jobs = results.reduce((sum, r) => sum + r.burst.jobs, 0);
    for (const r of results)
      for (const { owner, selfMs } of r.profileByOwner ?? []) {
        const entry = perJob.get(owner) ?? {};
        entry[column] = (entry[column] ?? 0) + selfMs / jobs;
        perJob.set(owner, entry);
      }
  }
  if (perJob.size === 0) return [];
  const largest = (e: Partial<Record<Observed, number>>) => Math.max(...columns.map((c) => e[c] ?? 0));
  const owners = [...perJob].sort((a, b) => largest(b[1]) - largest(a[1])).slice(0, 20);
  return [
    "",
    "Sampled main-thread self time per job of the burst (ms, `--profile`), by owner:",
    "",
    `| owner | ${columns.join(" | ")} |`,
    `| --- | ${columns.map(() => "---").join(" | ")} |`,
    ...owners.map(([owner, e]) => `| ${owner} | ${columns.map((c) => (e[c] ?? 0).toFixed(3)).join(" | ")} |`),
  ];
}

/** The section of docs/benchmarks.md, ratios on/off (above 1× costs more; jobs/s below 1× drains slower). */
/** Each round's on/off ratios of one state of the servers (fresh, or warmed), as table rows and a median line. */
function pairedLines(rounds: ObservedRound[], state: "fresh" | "warmed"): string[] {
  const pick = (r: ProductResult | undefined): MeasuredPhases | undefined => (state === "fresh" ? r : r?.warmed);
  const paired = rounds.flatMap((r) => {
    const [off, on] = [pick(r.off), pick(r.observed.on)];
    return off && on ? [{ ...r, off, on }] : [];
  });
  if (paired.length === 0) return [];
  const ratios = paired.map((r) => ({
    jobsPerSecond: r.on.burst.jobsPerSecond / r.off.burst.jobsPerSecond,
    cpu: cpuMsPerJob(r.on) / cpuMsPerJob(r.off),
    drainCpu: drainCpuMsPerJob(r.on) / drainCpuMsPerJob(r.off),
    overhead: r.on.steady.overhead.p50 / r.off.steady.overhead.p50,
  }));
  const rows = paired.map((r, i) => {
    const ratio = ratios[i];
    return (
      `| ${i + 1} (${i % 2 === 0 ? "off first" : "off last"}) | ${r.off.burst.jobsPerSecond.toFixed(1)} | ${r.on.burst.jobsPerSecond.toFixed(1)} | ` +
      `${x(ratio.jobsPerSecond)} | ${cpuMsPerJob(r.off).toFixed(2)} | ${cpuMsPerJob(r.on).toFixed(2)} | ${x(ratio.cpu)} | ` +
      `${drainCpuMsPerJob(r.off).toFixed(2)} | ${drainCpuMsPerJob(r.on).toFixed(2)} | ${x(ratio.drainCpu)} | ` +
      `${r.off.steady.overhead.p50.toFixed(0)} / ${r.on.steady.overhead.p50.toFixed(0)} | ` +
      `${r.loadAverage.before.toFixed(2)} → ${r.loadAverage.after.toFixed(2)} |`
    );
  });
  const warmedAfter = rounds[0]?.off.warmed?.afterJobs;
  return [
    "",
    state === "fresh"
      ? "**Fresh** (each server's first jobs):"
      : `**Warmed** (the same servers after ${warmedAfter ?? 0} jobs in all: a long-lived server's steady state):`,
    "",
    "| round (order) | jobs/s off | jobs/s on | jobs/s on/off | server CPU ms/job off | on | CPU on/off | " +
      "server + PostgreSQL CPU ms/job off | on | on/off | steady overhead p50 ms off / on | load average (1 min) |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rows,
    "",
    `Median over ${paired.length} round(s), ${state}: jobs/s on/off **${x(median(ratios.map((r) => r.jobsPerSecond)))}**, ` +
      `server CPU per job on/off **${x(median(ratios.map((r) => r.cpu)))}**, ` +
      `the drain's CPU per job (server + PostgreSQL) on/off **${x(median(ratios.map((r) => r.drainCpu)))}**, ` +
      `steady overhead p50 on/off ${x(median(ratios.map((r) => r.overhead)))}.`,
  ];
}

/** The section of docs/benchmarks.md, ratios on/off (above 1× costs more; jobs/s below 1× drains slower). */
export function renderObservability(
  rounds: ObservedRound[],
  machine: { cpuModel: string; cores: number; node: string; driver: string; date: string; command: string },
): string {
  const [first] = rounds;
  const warmup = first?.off.warmed?.unmeasuredJobs;
  return [
    "## Observability cost: metrics scraped and traces exported, against neither",
    "",
    `\`${machine.command}\` on ${machine.date.slice(0, 10)}: ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}, ${machine.driver}.`,
    "",
    `The product's phase (\`server.mjs\`, a fresh database, ${first?.off.nodes ?? 0} embedded node(s) with ` +
      `${first?.off.slots ?? 0} slots): ${first?.off.steady.count ?? 0} jobs at ${first?.off.steady.rate ?? 0} jobs/s, ` +
      `then ${first?.off.burst.jobs ?? 0} jobs from ${first?.off.burst.submitters ?? 0} clients drained by the nodes, ` +
      (warmup
        ? `measured fresh; then ${warmup} unmeasured jobs and the same phases again, measured warmed. `
        : "measured fresh. ") +
      "**on**: `METRICS_TOKEN` set and `/api/metrics` scraped every second from the bench process for the server's whole " +
      "life, and `OTEL_EXPORTER_OTLP_ENDPOINT` set (the default http/protobuf exporter, batched) to a receiver on " +
      "127.0.0.1 that counts the exports; **off**: neither variable. Each round runs both, in turn off first and off last. " +
      `Scrapes answered / OTLP exports per round: ${rounds.map((r) => `${r.scrapes} / ${r.exports}`).join(", ")}.`,
    ...pairedLines(rounds, "fresh"),
    ...pairedLines(rounds, "warmed"),
    "",
    "The machine is shared and was loaded (the load average column); only the ratios within a round compare.",
    ...(Object.keys(first?.observed ?? {}).some((v) => v !== "on") ? variantLines(rounds) : []),
  ].join("\n");
}
