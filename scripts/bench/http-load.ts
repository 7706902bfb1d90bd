// Closed-loop HTTP load with autocannon. Latencies are taken from autocannon's per-response timings
// (sub-millisecond), since its own histogram rounds to whole milliseconds.
import autocannon from "autocannon";
import { measureCpu, type BackendsCpu, type CpuUse } from "./cpu";
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
  /** PostgreSQL's CPU: the backends of the server's database (or every postgres process, `true`). */
  postgres?: boolean | BackendsCpu;
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
  const cpu = measureCpu(options.serverPid, options.postgres ?? false);
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
