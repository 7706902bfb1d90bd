// Every size limit and rate limit of the product, in one place.
import { availableParallelism } from "node:os";
import { env } from "@/lib/env";

export const limits = {
  /** Default JSON body limit (CONTRACT §1). */
  defaultBodyBytes: 1024 * 1024,
  /**
   * A body still arriving after its answer (a 413, an early 401) is read and dropped, so the client sees the
   * answer instead of a reset connection, up to this many bytes and this long; past either, the connection closes.
   */
  unreadBodyDrainBytes: 32 * 1024 * 1024,
  unreadBodyDrainMs: 10_000,
  /**
   * An idle keep-alive connection is closed after this long: longer than clients and proxies keep theirs idle
   * (undici 4 s, a load balancer's 60 s), so the client closes first. With Node's default 5 s, a request sent on a
   * connection just before its idle timer ran (a Go or Python client idle 10 s, a proxy's pooled connection) is
   * reset (ECONNRESET), and non-idempotent requests are not retried.
   */
  idleConnectionMs: 65_000,
  /** image-ocr accepts images up to 8 MiB; base64 inflates by 4/3, plus JSON framing. */
  ocrImageBytes: 8 * 1024 * 1024,
  get ocrBodyBytes() {
    return Math.ceil((this.ocrImageBytes * 4) / 3) + 64 * 1024;
  },
  /** Decoded bitmaps beyond this would exhaust the OCR engine's heap (decompression bombs). */
  ocrMaxPixels: 50_000_000,
  textChars: 20_000,
  /** JSON bodies nest at most this deep (every schema of the API needs fewer than 10 levels). */
  jsonMaxDepth: 32,
  /** Job lists carry input strings up to this many characters (the job's own route has the full input). */
  listInputChars: 200,
  pageLimitMax: 100,
  pageLimitDefault: 20,
  /**
   * A filtered list counts its rows up to this many and no further (`totalIsLowerBound` beyond): its total
   * then costs one bounded index read, whatever the account's history. Unfiltered lists have kept counts.
   */
  listCountCap: 10_000,
  /**
   * Pages by number (`page`, an offset) start within a list's first this many rows, the same bound as a filtered
   * list's count (whose last page by number is then its `totalPages`); deeper pages are read by cursor (`after`),
   * at the same cost at any depth. An offset costs a read of every row it skips, so without a bound one request
   * could walk an account's whole history.
   */
  listOffsetCap: 10_000,
  /** Log lines per page of a job's log (also the default: a log this short comes whole, as before pages). */
  logPageLimitMax: 1000,
  idempotencyKeyMaxLength: 255,
  /** Requests per minute per API key (token bucket); 0 disables. */
  get apiKeyRequestsPerMinute() {
    return env().RATE_LIMIT_PER_MINUTE;
  },
  /** Requests per minute per account, whichever of its keys or its session they come with; 0 disables. */
  get accountRequestsPerMinute() {
    return env().ACCOUNT_RATE_PER_MINUTE;
  },
  /** Live (not revoked) API keys per account: more keys must not mean more throughput. */
  apiKeysPerAccount: 50,
  /** Sign-in requests (nonce + verify) per minute per client IP; 0 disables. */
  get signInRequestsPerMinutePerIp() {
    return env().SIGN_IN_RATE_PER_MINUTE;
  },
  /** Paid calls (x402) per minute per payer address, and per client address; 0 disables. */
  get x402RequestsPerMinute() {
    return env().X402_RATE_PER_MINUTE;
  },
  /** Node-protocol requests per minute per developer's node (the network's nodes are the operator's own); 0 disables. */
  get developerNodeRequestsPerMinute() {
    return env().NODE_RATE_PER_MINUTE;
  },
  nodeClaimMaxWaitMs: 25_000,
  /**
   * What nodes may report of one job, its attempts together: provider requests and log lines (counted together)
   * and their bytes (log messages, provider requests' JSON). Past either cap one "logs truncated" line is stored
   * and nothing more, while the reports still succeed (lib/engine/appended-log.ts).
   */
  jobReportedItems: 2_000,
  jobReportedBytes: 1024 * 1024,
  webhookEndpointsPerDeveloper: 10,
  /** Nodes a developer may have (not revoked) at once (CONTRACT §12). */
  nodesPerDeveloper: 20,
  /** Jobs a developer's node runs at once unless its owner says otherwise. */
  developerNodeDefaultConcurrency: 4,
  /** The part of a receiver's answer kept with each attempt (CONTRACT §8: the first 4 KB). */
  webhookResponseBytes: 4096,
  /** Attempts kept per delivery, the newest (CONTRACT §8); an older one is deleted as a new one is recorded. */
  webhookAttemptsKept: 20,
  /** Attempts in flight to one endpoint per instance, so one slow receiver cannot hold back the others. */
  webhookInFlightPerEndpoint: 8,
  /** An open event stream re-checks its credential this often and ends once it is revoked or expired. */
  streamCredentialRecheckMs: 3_000,
  /** Concurrent event streams per account, counted across every server instance. */
  streamsPerAccount: 10,
  /** An open stream's place lasts this long unless renewed (at each credential re-check): a dead instance's streams free their places after it. */
  streamLeaseMs: 30_000,
  /** text-summarize ranks at most this many sentences (TextRank is O(n²) per iteration) … */
  summarizeMaxSentences: 400,
  /** … over at most this many power iterations. */
  textRankMaxIterations: 50,
  /** Worker threads for CPU-bound providers: leave one core to the HTTP event loop. */
  providerThreads: Math.max(1, Math.min(4, availableParallelism() - 1)),
  /** A wallet session (server-side row and cookie) lasts this long unless revoked. */
  sessionMaxAgeSeconds: 7 * 24 * 3600,
} as const;
