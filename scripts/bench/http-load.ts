// Closed-loop HTTP load with autocannon. Latencies are taken from autocannon's per-response timings
// (sub-millisecond), since its own histogram rounds to whole milliseconds.
import autocannon from "autocannon";
import { measureCpu, type CpuUse } from "./cpu";
import { summarize, type Summary } from "./stats";

export interface LoadOptions {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationSeconds: number;
  /** For the CPU figures. */
  serverPid?: number;
  withPostgres?: boolean;
}

export interface LoadResult {
  requests: number;
  requestsPerSecond: number;
  latency: Summary;
  non2xx: number;
  errors: number;
  cpu: CpuUse;
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const cpu = measureCpu(options.serverPid, options.withPostgres ?? false);
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        method: options.method ?? "GET",
        headers: options.headers,
        body: options.body,
        connections: options.connections,
        duration: options.durationSeconds,
      },
      (error: unknown, done: autocannon.Result) => (error ? reject(error) : resolve(done)),
    );
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
  const used = cpu();
  return {
    requests: result["2xx"],
    requestsPerSecond: result["2xx"] / result.duration,
    latency: summarize(latencies),
    non2xx: result.non2xx,
    errors: result.errors,
    cpu: used,
  };
}
