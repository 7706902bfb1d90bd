// A JSON-RPC relay between the server and the local chain that a test can take down and bring back, as an
// RPC provider's outage would: while down it refuses every call (HTTP 503), and it can be set to fail only
// the calls of one method after a number of them (an outage in the middle of a scan). It can also lag: for
// a hidden transaction it answers `null` to eth_getTransactionReceipt and eth_getTransactionByHash, as a
// node behind a load balancer that has not yet seen the block does (a protocol-accurate answer, not an error).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface RpcProxy {
  url: string;
  /** Every call fails while true. */
  setDown(down: boolean): void;
  /** The next calls of `method` succeed `allowed` times, then fail until cleared with `failMethodAfter(method)`. */
  failMethodAfter(method: string, allowed?: number): void;
  /** While hidden, the transaction's receipt and the transaction itself read as `null` (a lagging node). */
  hideTransaction(txHash: string, hidden: boolean): void;
  /** Calls with `value` among their parameters answer a JSON-RPC error while set (one transaction's calls fail). */
  failCallsNaming(value: string, failing: boolean): void;
  /**
   * Runs `hook` (awaited, with the call's params) before each single call of `method` is forwarded, until
   * cleared with `beforeForwarding(method)`. The hook may answer instead: `{ answer }` replies that result
   * without forwarding (a transaction the node drops), `{ error }` answers that JSON-RPC error (a refused
   * query), `{ failAfterForwarding: true }` forwards the call, then
   * answers HTTP 502 (the call took effect, its answer was lost: a reset connection).
   */
  beforeForwarding(method: string, hook?: ForwardingHook): void;
  /** How many calls of each method went through. */
  calls: Map<string, number>;
  /** How many calls went through (or were answered as lagging) with `value` among their parameters. */
  callsNaming(value: string): number;
  close(): Promise<void>;
}

export type ForwardingHook = (
  params: unknown[],
) => Promise<void | { answer: unknown } | { error: { code: number; message: string } } | { failAfterForwarding: true }>;

interface Call {
  jsonrpc?: string;
  id?: unknown;
  method?: string;
  params?: unknown[];
}

const lagging = new Set(["eth_getTransactionReceipt", "eth_getTransactionByHash"]);

export async function startRpcProxy(upstream: string): Promise<RpcProxy> {
  let down = false;
  const failing = new Map<string, number>();
  const calls = new Map<string, number>();
  const hidden = new Set<string>();
  const poisoned = new Set<string>();
  const seenParams: string[] = [];
  const hooks = new Map<string, ForwardingHook>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const parsed = JSON.parse(body) as Call | Call[];
      const batch = ([] as Call[]).concat(parsed);
      const methods = batch.map((call) => call.method ?? "");
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
      for (const call of batch) {
        calls.set(call.method ?? "", (calls.get(call.method ?? "") ?? 0) + 1);
        seenParams.push(JSON.stringify(call.params ?? []).toLowerCase());
      }
      const isPoisoned = (call: Call) =>
        [...poisoned].some((value) =>
          JSON.stringify(call.params ?? [])
            .toLowerCase()
            .includes(value),
        );
      if (!Array.isArray(parsed) && isPoisoned(parsed)) {
        const error = { code: -32603, message: "internal error" };
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ jsonrpc: "2.0", id: parsed.id, error }));
        return;
      }
      const isHidden = (call: Call) =>
        lagging.has(call.method ?? "") && hidden.has(String(call.params?.[0] ?? "").toLowerCase());
      if (batch.some(isHidden)) {
        // Only single calls lag here (viem's http transport does not batch unless asked to).
        const answers = batch.map((call) => ({ jsonrpc: "2.0", id: call.id, result: null }));
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify(Array.isArray(parsed) ? answers : answers[0]));
        return;
      }
      const single = Array.isArray(parsed) ? undefined : parsed;
      const hook = single ? hooks.get(single.method ?? "") : undefined;
      (hook ? hook(single?.params ?? []) : Promise.resolve())
        .then(async (instead) => {
          if (instead && "error" in instead) {
            const answer = JSON.stringify({ jsonrpc: "2.0", id: single?.id, error: instead.error });
            return void res.writeHead(200, { "content-type": "application/json" }).end(answer);
          }
          if (instead && "answer" in instead) {
            const answer = JSON.stringify({ jsonrpc: "2.0", id: single?.id, result: instead.answer });
            return void res.writeHead(200, { "content-type": "application/json" }).end(answer);
          }
          const answer = await fetch(upstream, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body,
          });
          const text = await answer.text();
          if (instead && "failAfterForwarding" in instead) return void res.writeHead(502).end();
          res.writeHead(answer.status, { "content-type": "application/json" }).end(text);
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setDown: (value) => void (down = value),
    failMethodAfter: (method, allowed) =>
      void (allowed === undefined ? failing.delete(method) : failing.set(method, allowed)),
    hideTransaction: (txHash, isHidden) =>
      void (isHidden ? hidden.add(txHash.toLowerCase()) : hidden.delete(txHash.toLowerCase())),
    failCallsNaming: (value, failing) =>
      void (failing ? poisoned.add(value.toLowerCase()) : poisoned.delete(value.toLowerCase())),
    beforeForwarding: (method, hook) => void (hook ? hooks.set(method, hook) : hooks.delete(method)),
    calls,
    callsNaming: (value) => seenParams.filter((params) => params.includes(value.toLowerCase())).length,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
