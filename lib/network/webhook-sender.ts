// Sends one webhook attempt without server-side request forgery: the host is resolved once, every address
// is checked (unless the host is in WEBHOOK_ALLOWED_HOSTS), and the connection goes only to the checked
// addresses (the socket's lookup answers from them: no second resolution, so no DNS rebinding). Redirects
// are not followed, the answer is read up to `maxResponseBytes` (4 KB), and the whole attempt has one deadline.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { webhookDestinationForbidden } from "@/lib/contract/vocabulary";
import { forbiddenRange, hostOf, isAllowedHost } from "@/lib/domain/webhook-address";
import type { AttemptOutcome } from "@/lib/domain/webhook-outbox";

export interface SendOptions {
  timeoutMs: number;
  allowedHosts: readonly string[];
  maxResponseBytes: number;
}

class AttemptError extends Error {}

function resolve(host: string): Promise<LookupAddress[]> {
  if (forbiddenRange(host) !== "invalid")
    return Promise.resolve([{ address: host, family: host.includes(":") ? 6 : 4 }]);
  return new Promise((done, fail) =>
    dnsLookup(host, { all: true, verbatim: true }, (err, addresses) =>
      err ? fail(new AttemptError(`DNS_FAILED: ${err.code ?? err.message}`)) : done(addresses),
    ),
  );
}

/** A socket lookup that only ever answers with the addresses already checked. */
function pinnedLookup(addresses: LookupAddress[]): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  }) as LookupFunction;
}

export async function sendWebhook(
  rawUrl: string,
  headers: Record<string, string>,
  body: string,
  options: SendOptions,
): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failed = (error: string): AttemptOutcome => ({
    responseStatus: null,
    latencyMs: elapsed(),
    error,
    responseBody: null,
  });
  const url = new URL(rawUrl);
  const host = hostOf(url);
  const allowed = isAllowedHost(host, options.allowedHosts);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && allowed)) return failed(webhookDestinationForbidden);

  let timer: NodeJS.Timeout | undefined;
  const aborter = new AbortController();
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      aborter.abort();
      reject(new AttemptError("TIMEOUT"));
    }, options.timeoutMs);
  });
  try {
    const addresses = await Promise.race([resolve(host), deadline]);
    if (addresses.length === 0) return failed("DNS_FAILED: no address");
    if (!allowed && addresses.some((a) => forbiddenRange(a.address) !== null))
      return failed(webhookDestinationForbidden);
    return await Promise.race([
      exchange(url, host, addresses, headers, body, options, aborter.signal, elapsed),
      deadline,
    ]);
  } catch (error) {
    return failed(
      error instanceof AttemptError
        ? error.message
        : `CONNECTION_FAILED: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  } finally {
    clearTimeout(timer);
  }
}

function exchange(
  url: URL,
  host: string,
  addresses: LookupAddress[],
  headers: Record<string, string>,
  body: string,
  options: SendOptions,
  signal: AbortSignal,
  elapsed: () => number,
): Promise<AttemptOutcome> {
  const transport = url.protocol === "https:" ? https : http;
  return new Promise((done, fail) => {
    const req = transport.request({
      method: "POST",
      hostname: host,
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
      lookup: pinnedLookup(addresses),
      agent: false,
      // The deadline aborts the socket wherever the exchange is (connecting, sending, waiting, reading).
      signal,
    });
    req.on("error", fail);
    req.on("response", (res) => {
      const latencyMs = elapsed();
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let kept = 0;
      const finish = () => {
        const responseBody = Buffer.concat(chunks).subarray(0, options.maxResponseBytes).toString("utf8");
        const ok = status >= 200 && status < 300;
        const error = ok ? null : status >= 300 && status < 400 ? "REDIRECT_NOT_FOLLOWED" : "BAD_STATUS";
        done({ responseStatus: status, latencyMs, error, responseBody });
        res.destroy();
      };
      res.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
        kept += chunk.length;
        // Enough kept: the rest of the answer is not read.
        if (kept >= options.maxResponseBytes) finish();
      });
      res.on("end", finish);
      res.on("error", finish);
    });
    req.end(body);
  });
}
