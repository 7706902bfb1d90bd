// A JSON-RPC relay between the server and the local chain that a test can take down and bring back, as an
// RPC provider's outage would: while down it refuses every call (HTTP 503), and it can be set to fail only
// the calls of one method after a number of them (an outage in the middle of a scan).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface RpcProxy {
  url: string;
  /** Every call fails while true. */
  setDown(down: boolean): void;
  /** The next calls of `method` succeed `allowed` times, then fail until cleared with `failMethodAfter(method)`. */
  failMethodAfter(method: string, allowed?: number): void;
  /** How many calls of each method went through. */
  calls: Map<string, number>;
  close(): Promise<void>;
}

export async function startRpcProxy(upstream: string): Promise<RpcProxy> {
  let down = false;
  const failing = new Map<string, number>();
  const calls = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const methods = ([] as { method?: string }[])
        .concat(JSON.parse(body) as { method?: string })
        .map((call) => call.method ?? "");
      const refuse =
        down ||
        methods.some((method) => {
          const left = failing.get(method);
          if (left === undefined) return false;
          failing.set(method, left - 1);
          return left <= 0;
        });
      if (refuse) {
        res.writeHead(503, { "content-type": "text/plain" }).end("upstream unavailable");
        return;
      }
      for (const method of methods) calls.set(method, (calls.get(method) ?? 0) + 1);
      fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body })
        .then(async (answer) =>
          res.writeHead(answer.status, { "content-type": "application/json" }).end(await answer.text()),
        )
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setDown: (value) => void (down = value),
    failMethodAfter: (method, allowed) =>
      void (allowed === undefined ? failing.delete(method) : failing.set(method, allowed)),
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
