// `npm run bench -- --observability`: what watching the product costs (issue 44, item 3). The product's phase
// (bench/product.ts: server.mjs, a fresh database, steady arrivals then a burst drained by the embedded nodes)
// on this tree, paired: once with nothing observing it, once with /api/metrics scraped every second and traces
// exported over OTLP/HTTP to a local receiver, in turn off-on then on-off for `rounds` rounds, so a drift of the
// machine's speed hits both alike. The report gives each round's ratios and their median.
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import type { ProductOptions } from "./product";
import type { ProductResult } from "./results";

export type Observed = "off" | "on";

export interface ObservedRound {
  off: ProductResult;
  on: ProductResult;
  /** Metrics scrapes answered 200 while the observed server ran. */
  scrapes: number;
  /** OTLP export requests the receiver took from it. */
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
      const order: Observed[] = round % 2 === 0 ? ["off", "on"] : ["on", "off"];
      const measured: Partial<Record<Observed, ProductResult>> = {};
      for (const observed of order) {
        measured[observed] = await product(
          observed,
          observed === "off"
            ? {}
            : {
                env: { METRICS_TOKEN: token, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint },
                alongside: (baseUrl) => scrapeEverySecond(baseUrl, token, () => (scrapes += 1)),
              },
        );
      }
      results.push({
        off: measured.off as ProductResult,
        on: measured.on as ProductResult,
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
const cpuMsPerJob = (r: ProductResult) => (r.burst.cpu.server / 100) * r.burst.cpu.seconds * (1000 / r.burst.jobs);

/** The section of docs/benchmarks.md, ratios on/off (above 1× costs more; jobs/s below 1× drains slower). */
export function renderObservability(
  rounds: ObservedRound[],
  machine: { cpuModel: string; cores: number; node: string; driver: string; date: string; command: string },
): string {
  const ratios = rounds.map((r) => ({
    jobsPerSecond: r.on.burst.jobsPerSecond / r.off.burst.jobsPerSecond,
    cpu: cpuMsPerJob(r.on) / cpuMsPerJob(r.off),
    overhead: r.on.steady.overhead.p50 / r.off.steady.overhead.p50,
  }));
  const x = (n: number) => `${n.toFixed(2)}×`;
  const rows = rounds.map((r, i) => {
    const ratio = ratios[i];
    return (
      `| ${i + 1} (${i % 2 === 0 ? "off, on" : "on, off"}) | ${r.off.burst.jobsPerSecond.toFixed(1)} | ${r.on.burst.jobsPerSecond.toFixed(1)} | ` +
      `${x(ratio.jobsPerSecond)} | ${cpuMsPerJob(r.off).toFixed(2)} | ${cpuMsPerJob(r.on).toFixed(2)} | ${x(ratio.cpu)} | ` +
      `${r.off.steady.overhead.p50.toFixed(0)} / ${r.on.steady.overhead.p50.toFixed(0)} | ${r.scrapes} | ${r.exports} | ` +
      `${r.loadAverage.before.toFixed(2)} → ${r.loadAverage.after.toFixed(2)} |`
    );
  });
  const [first] = rounds;
  return [
    "## Observability cost: metrics scraped and traces exported, against neither",
    "",
    `\`${machine.command}\` on ${machine.date.slice(0, 10)}: ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}, ${machine.driver}.`,
    "",
    `The product's phase (\`server.mjs\`, a fresh database, ${first?.off.nodes ?? 0} embedded node(s) with ` +
      `${first?.off.slots ?? 0} slots, no warm-up): ${first?.off.steady.count ?? 0} jobs at ${first?.off.steady.rate ?? 0} jobs/s, ` +
      `then ${first?.off.burst.jobs ?? 0} jobs from ${first?.off.burst.submitters ?? 0} clients drained by the nodes. ` +
      "**on**: `METRICS_TOKEN` set and `/api/metrics` scraped every second from the bench process for the server's whole " +
      "life, and `OTEL_EXPORTER_OTLP_ENDPOINT` set (the default http/protobuf exporter, batched) to a receiver on " +
      "127.0.0.1 that counts the exports; **off**: neither variable. Each round runs both, in turn off-on and on-off.",
    "",
    "| round (order) | jobs/s off | jobs/s on | jobs/s on/off | server CPU ms/job off | on | CPU on/off | steady overhead p50 ms off / on | scrapes | OTLP exports | load average (1 min) |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rows,
    "",
    `Median over ${rounds.length} round(s): jobs/s on/off **${x(median(ratios.map((r) => r.jobsPerSecond)))}**, ` +
      `server CPU per job on/off **${x(median(ratios.map((r) => r.cpu)))}**, ` +
      `steady overhead p50 on/off ${x(median(ratios.map((r) => r.overhead)))}. ` +
      "The machine is shared and was loaded (the load average column); only the ratios within a round compare.",
  ].join("\n");
}
