// Liveness under load (issue 11, defect 3): GET /api/health/live every ~50 ms while something else runs.
// A route that answers without touching the database measures how long the server's event loop is busy.
import { setTimeout as sleep } from "node:timers/promises";
import { summarize, type Summary } from "./stats";

const intervalMs = 50;

/** Starts probing; the returned function stops and gives the round trips (a failed probe counts as NaN). */
export function probeLiveness(baseUrl: string): () => Promise<Summary & { failed: number }> {
  const latencies: number[] = [];
  let failed = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const started = performance.now();
      try {
        const res = await fetch(`${baseUrl}/api/health/live`, { signal: AbortSignal.timeout(30_000) });
        await res.arrayBuffer();
        if (res.status === 200) latencies.push(performance.now() - started);
        else failed++;
      } catch {
        failed++;
      }
      // Every ~50 ms from the previous probe's start; a slow answer delays the next probe, it is not piled up.
      const wait = intervalMs - (performance.now() - started);
      if (wait > 0) await sleep(wait);
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    return { ...summarize(latencies), failed };
  };
}

/** Probes an idle server for `seconds`: the baseline the probe under load is compared with. */
export async function probeIdle(baseUrl: string, seconds: number): Promise<Summary & { failed: number }> {
  const stop = probeLiveness(baseUrl);
  await sleep(seconds * 1000);
  return stop();
}
