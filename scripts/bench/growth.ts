// The growth section of `npm run bench -- --growth` (issue 43): the product as users run it (`server.mjs` on
// the production build, PostgreSQL, 4 embedded nodes), empty and then after a seeded history of one
// developer's jobs over 60 days, measured in alternation with an empty twin server (the growth is the ratio of
// the two in the same moments, on a machine whose load drifts) (written by SQL with generate_series as the product stores them: each job with
// its events, a log line, its charge, its webhook delivery and its usage rollups, plus a top-up every thousand
// jobs), after ANALYZE: the reads a developer makes on every dashboard visit (median of 15, after one untimed
// request each), the jobs list deep by cursor, and a queue drain of 300 jobs.
import os from "node:os";
import pg from "pg";
import { encodeCursor } from "@/lib/contract/list-cursor";
import { signUpDeveloper, workloadScopes } from "@/tests/support/developer";
import { startNextServer } from "@/tests/support/next-server";
import { createThrowawayDatabase } from "@/tests/support/postgres";
import { limits } from "@/lib/limits";
import { buildIfStale } from "./product";

export interface GrowthOptions {
  /** PostgreSQL server for the throwaway database (dropped at the end). */
  adminUrl: string;
  /** Jobs in the seeded history. */
  jobs: number;
  /** Timed requests per read (their median is reported). */
  runs: number;
  drainJobs: number;
  /**
   * How many times the drains run A B B A (`--growth-drains`): each server's figure is the median of its
   * 2 × drainCycles drains. One drain of a few hundred jobs takes about a second, and one pair moved by ±20 % here.
   */
  drainCycles: number;
  /** How deep the cursor read starts, in pages of 20. */
  deepPages: number;
  progress: (message: string) => void;
}

export type GrowthReads = Record<string, number>;

export interface GrowthResult {
  jobs: number;
  runs: number;
  drainCycles: number;
  seedSeconds: number;
  /** The empty twin's figures, taken with the grown server's. */
  empty: GrowthReads;
  grown: GrowthReads;
  /** Both servers' figures while both were empty. */
  emptyA: GrowthReads;
  emptyB: GrowthReads;
  /** Load averages (1, 5, 15 min) at the start, after the seed, at the end. */
  loadAverages: number[][];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** The median, the mean of the middle two for an even count (one A B B A cycle: the mean of a server's two drains). */
const middle = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2;
};

interface Served {
  baseUrl: string;
  apiKey: string;
  accountId: string;
  apiKeyId: string;
  endpointId: string;
}

const get = (s: Served, path: string) => fetch(`${s.baseUrl}${path}`, { headers: { "x-api-key": s.apiKey } });

/** Each server's median time of `pathOf(server)`, the servers' requests alternating (in turn A B, then B A). */
async function timed(servers: Served[], pathOf: (s: Served) => string, runs: number): Promise<number[]> {
  // One request each first, untimed: the first of each route compiles its statements.
  for (const s of servers) await (await get(s, pathOf(s))).arrayBuffer();
  const times = servers.map(() => [] as number[]);
  for (let i = 0; i < runs; i++) {
    const order = servers.map((_, k) => k);
    if (i % 2 === 1) order.reverse();
    for (const k of order) {
      const path = pathOf(servers[k]);
      const started = performance.now();
      const res = await get(servers[k], path);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      times[k].push(performance.now() - started);
    }
  }
  return times.map(median);
}

async function drain(s: Served, client: pg.Client, jobs: number): Promise<number> {
  const since = new Date();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: jobs }, async (_, i) => {
      const res = await fetch(`${s.baseUrl}/api/marketplace/services/token-count/execute`, {
        method: "POST",
        headers: { "x-api-key": s.apiKey, "content-type": "application/json" },
        body: JSON.stringify({ input: { text: `drain ${i}` } }),
      });
      await res.arrayBuffer();
      if (res.status !== 201 && res.status !== 200 && res.status !== 202) throw new Error(`execute: ${res.status}`);
    }),
  );
  for (;;) {
    const { rows } = await client.query<{ n: number }>(
      `select count(*)::int as n from jobs where account_id = $1 and created_at >= $2 and status in ('completed', 'failed')`,
      [s.accountId, since],
    );
    if (rows[0].n >= jobs) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return jobs / ((performance.now() - started) / 1000);
}

/** The cursor after the row `pages` pages of 20 down the jobs list (or after its last row when it is shorter). */
async function deepJobsCursor(client: pg.Client, accountId: string, pages: number): Promise<string> {
  const { rows } = await client.query<{ created_at: Date; id: string }>(
    `select created_at, id from jobs where account_id = $1 order by created_at desc, id desc
     offset least($2::int, (select count(*) from jobs where account_id = $1)::int - 1) limit 1`,
    [accountId, pages * 20 - 1],
  );
  return encodeCursor("jobs", [rows[0].created_at, rows[0].id]);
}

/** What a server's reads need: one of its jobs, and the cursor deep in its jobs list. */
interface ReadContext {
  jobId: string;
  deepCursor: string;
}

/**
 * The reads, each on every server in alternation (so a change in the machine's load hits them alike), then
 * the drain on each in turn (A B B A: the mean of two).
 */
async function reads(servers: (Served & { client: pg.Client })[], options: GrowthOptions): Promise<GrowthReads[]> {
  const { runs } = options;
  const context = new Map<Served, ReadContext>();
  for (const s of servers) {
    const [{ jobId }] = (await (await get(s, "/api/developers/jobs?limit=1")).json()).data as { jobId: string }[];
    context.set(s, { jobId, deepCursor: await deepJobsCursor(s.client, s.accountId, options.deepPages) });
  }
  const of = (s: Served) => context.get(s) as ReadContext;
  // The deepest page a page number reaches (deeper ones are refused and read by cursor).
  const deepestPage = Math.ceil(limits.listOffsetCap / 20);
  // 30 days that start and end half-way through an hour: both partial hours are read from the rows.
  const hourMs = 3600_000;
  const thisHour = Math.floor(Date.now() / hourMs) * hourMs;
  const cutPeriod = [thisHour - 30 * 24 * hourMs + hourMs / 2, thisHour - hourMs / 2].map((t) =>
    new Date(t).toISOString(),
  );
  const paths: [string, (s: Served) => string][] = [
    ["jobs list, page 1", () => "/api/developers/jobs?page=1&limit=20"],
    [
      `jobs list by cursor, after ${options.deepPages.toLocaleString("en")} pages`,
      (s) => `/api/developers/jobs?limit=20&after=${of(s).deepCursor}`,
    ],
    [
      `jobs list, page ${deepestPage.toLocaleString("en")} by number (the deepest page by number)`,
      () => `/api/developers/jobs?page=${deepestPage}&limit=20`,
    ],
    ["usage metrics, last 30 days", () => "/api/developers/metrics"],
    [
      "usage metrics, 30 days from and to half past an hour",
      () => `/api/developers/metrics?periodStart=${cutPeriod[0]}&periodEnd=${cutPeriod[1]}`,
    ],
    ["credit history, page 1", () => "/api/credits/history?page=1&limit=20"],
    ["top-ups, page 1", () => "/api/credits/top-ups?page=1&limit=20"],
    ["webhook deliveries, page 1", (s) => `/api/developers/webhooks/${s.endpointId}/deliveries?page=1&limit=20`],
    ["one job's telemetry", (s) => `/api/developers/jobs/${of(s).jobId}/telemetry`],
  ];
  const results = servers.map(() => ({}) as GrowthReads);
  for (const [name, pathOf] of paths) {
    const medians = await timed(servers, pathOf, runs);
    medians.forEach((m, k) => (results[k][name] = m));
  }
  const drains = servers.map(() => [] as number[]);
  for (let cycle = 0; cycle < options.drainCycles; cycle++)
    for (const k of [...servers.keys(), ...[...servers.keys()].reverse()])
      drains[k].push(await drain(servers[k], servers[k].client, options.drainJobs));
  drains.forEach((d, k) => (results[k][`queue drain, ${options.drainJobs} jobs`] = middle(d)));
  return results;
}

/**
 * One developer's history: `n` completed token-count jobs over the 60 days before now, as the product stores
 * them (the kept list totals moved as the product's statements move them), and a top-up every 1,000 jobs.
 */
async function seed(client: pg.Client, s: Served, n: number, progress: (m: string) => void) {
  const step = (60 * 24 * 3600 * 1000) / n;
  const [accountId, apiKeyId] = [s.accountId, s.apiKeyId];
  await client.query(
    `create temporary table seeded as
    select gen_random_uuid() as id, now() - make_interval(secs => ($2::float8 * ($1::int - g)) / 1000) as created_at, g
    from generate_series(1, $1::int) g`,
    [n, step],
  );
  progress("growth: seeding jobs");
  await client.query(
    `insert into jobs (id, account_id, api_key_id, service_id, status, progress, input, credit_cost, max_attempts,
       timeout_ms, attempt, event_seq, log_seq, result, created_at, updated_at, started_at, completed_at, charged_at)
     select id, $1, $2, 'token-count', 'completed', 100, '{"text":"seeded"}', 1, 3, 120000, 1, 4, 1,
       '{"summary":"3 tokens","output":{"tokens":3}}', created_at, created_at + interval '40 ms',
       created_at + interval '10 ms', created_at + interval '40 ms', created_at
     from seeded`,
    [accountId, apiKeyId],
  );
  progress("growth: seeding events");
  await client.query(
    `insert into job_events (job_id, sequence, type, attempt, data, created_at)
     select s.id, e.sequence, e.type, e.attempt, '{}'::jsonb, s.created_at
     from seeded s cross join (values (1, 'JOB_CREATED', 0), (2, 'ROUTING_STARTED', 0), (3, 'NODE_ASSIGNED', 1),
       (4, 'EXECUTION_COMPLETED', 1)) e(sequence, type, attempt)`,
  );
  progress("growth: seeding logs");
  await client.query(
    `insert into job_logs (job_id, sequence, level, source, message, created_at)
     select id, 1, 'info', 'node', 'Completed: 3 tokens', created_at from seeded`,
  );
  progress("growth: seeding the ledger");
  await client.query(
    `insert into credit_ledger (account_id, type, amount, balance_after, job_id, description, created_at)
     select $1, 'charge', -1, 1000000000000 - g, id, 'token-count job', created_at from seeded order by g`,
    [accountId],
  );
  progress("growth: seeding webhook deliveries");
  await client.query(
    `insert into webhook_deliveries (endpoint_id, account_id, event_id, event_type, job_id, body, status, attempts,
       cycle_attempts, cycle_started_at, next_attempt_at, last_response_status, last_latency_ms, created_at, updated_at)
     select $1, $2, 'msg_' || replace(id::text, '-', ''), 'job.completed', id, '{"type":"job.completed"}',
       'delivered', 1, 1, created_at, null, 200, 30, created_at + interval '40 ms', created_at + interval '80 ms'
     from seeded`,
    [s.endpointId, accountId],
  );
  progress("growth: seeding top-ups");
  await client.query(
    `insert into top_ups (chain_id, tx_hash, account_id, from_address, token_amount, credits, status, confirmations,
       required_confirmations, block_number, block_hash, checked_at, created_at, credited_at)
     select 31337, '0x' || lpad(to_hex(g), 64, '0'), $1, '0x000000000000000000000000000000000000bEEF',
       1000000000000000000, 1000, 'credited', 3, 3, g, '0x' || lpad(to_hex(g), 64, '0'), created_at, created_at,
       created_at
     from seeded where g % 1000 = 0`,
    [accountId],
  );
  progress("growth: seeding the usage rollups and kept totals");
  // Per hour, per minute and per day (a period's whole days are read from the days, the hours of its partial days
  // from the hours, the minutes of its partial hours from the minutes).
  for (const [table, unit] of [
    ["usage_rollups", "hour"],
    ["usage_minute_rollups", "minute"],
    ["usage_day_rollups", "day"],
  ])
    await client.query(
      `insert into ${table} as u (account_id, ${unit}, service_id, api_key_id, jobs, completed, credits_charged,
         duration_count, duration_sum_ms, durations)
       select $1, date_trunc('${unit}', created_at, 'UTC'), 'token-count', $2, count(*), count(*), count(*), count(*),
         40 * count(*), jsonb_build_object((1 + floor(ln(40) / ln(1.05))::int)::text, count(*))
       from seeded group by 2
       on conflict (account_id, ${unit}, service_id, api_key_id) do update set jobs = u.jobs + excluded.jobs,
         completed = u.completed + excluded.completed, credits_charged = u.credits_charged + excluded.credits_charged,
         duration_count = u.duration_count + excluded.duration_count,
         duration_sum_ms = u.duration_sum_ms + excluded.duration_sum_ms,
         durations = excluded.durations`,
      [accountId, apiKeyId],
    );
  // The statements that write jobs and ledger entries move these totals (lib/domain/list-counts.ts).
  await client.query(
    `insert into list_counts as c (scope_id, list, count) values ($1, 'jobs', $2), ($1, 'credit_entries', $2)
     on conflict (scope_id, list) do update set count = c.count + excluded.count`,
    [accountId, n],
  );
  await client.query("drop table seeded");
  // VACUUM as well as ANALYZE: this machine's server runs with autovacuum off, and PostgreSQL's default (on) would
  // vacuum a table this many rows were inserted into within a minute, setting its visibility map (which an
  // index-only scan, such as a page by number's seek, reads instead of the rows).
  progress("growth: VACUUM ANALYZE");
  await client.query("vacuum analyze");
}

/** The developer, an API key, and a webhook endpoint (disabled: the drain's jobs queue no deliveries). */
async function signUp(baseUrl: string, client: pg.Client): Promise<Served> {
  const developer = await signUpDeveloper(baseUrl, { name: "Bench Developer" });
  const apiKey = await developer.createApiKey(workloadScopes);
  const { rows } = await client.query<{ account_id: string; id: string }>(
    `select a.id as account_id, k.id from accounts a join api_keys k on k.account_id = a.id
     where a.name = 'Bench Developer' and k.kind = 'standard'`,
  );
  const endpoint = await client.query<{ id: string }>(
    `insert into webhook_endpoints (account_id, url, events, status, secret_ciphertext)
     values ($1, 'https://example.com/hooks', '{job.completed}', 'disabled', 'unused') returning id`,
    [rows[0].account_id],
  );
  return { baseUrl, apiKey, accountId: rows[0].account_id, apiKeyId: rows[0].id, endpointId: endpoint.rows[0].id };
}

type Running = Served & { client: pg.Client; stop(): Promise<void> };

/** server.mjs on a throwaway database of its own, with the developer signed up and one job run. */
async function startServed(options: GrowthOptions, cleanups: Set<() => Promise<void>>): Promise<Running> {
  const database = await createThrowawayDatabase(options.adminUrl, "en_bench_growth");
  cleanups.add(database.drop);
  const next = await startNextServer({
    env: {
      DATABASE_URL: database.url,
      EMBEDDED_NODES: "4",
      RATE_LIMIT_PER_MINUTE: "0",
      ACCOUNT_RATE_PER_MINUTE: "0",
      STARTER_CREDITS: String(10 ** 12),
    },
  });
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const stop = async () => {
    cleanups.delete(stop);
    await client.end();
    await next.stop("SIGTERM");
    cleanups.delete(database.drop);
    await database.drop();
  };
  cleanups.add(stop);
  const served = { ...(await signUp(next.baseUrl, client)), client, stop };
  // A first job, so that an empty server has one to list and read the telemetry of.
  await drain(served, client, 1);
  return served;
}

/**
 * Two servers, A and its twin B: measured together (in alternation) while both are empty, then A is seeded
 * and they are measured together again. A's figures against B's in the same moments give the growth; A's
 * against B's while both were empty, the bench's own noise.
 */
export async function benchGrowth(options: GrowthOptions, cleanups: Set<() => Promise<void>>): Promise<GrowthResult> {
  const { progress } = options;
  buildIfStale(process.cwd());
  progress("growth: serving two server.mjs (A, to be seeded, and its twin B) on PostgreSQL with 4 embedded nodes each");
  const a = await startServed(options, cleanups);
  try {
    const b = await startServed(options, cleanups);
    try {
      const loadAverages = [os.loadavg()];
      progress("growth: measuring A and B, both empty");
      const [emptyA, emptyB] = await reads([a, b], options);
      const started = performance.now();
      await seed(a.client, a, options.jobs, progress);
      const seedSeconds = (performance.now() - started) / 1000;
      loadAverages.push(os.loadavg());
      progress(`growth: seeded ${options.jobs} jobs in ${seedSeconds.toFixed(0)} s; measuring A and B`);
      const [grown, empty] = await reads([a, b], options);
      loadAverages.push(os.loadavg());
      return {
        jobs: options.jobs,
        runs: options.runs,
        drainCycles: options.drainCycles,
        seedSeconds,
        empty,
        grown,
        emptyA,
        emptyB,
        loadAverages,
      };
    } finally {
      await b.stop();
    }
  } finally {
    await a.stop();
  }
}

/** The table: each read on the empty twin and on the grown server in the same moments, and the aim's verdict. */
export function renderGrowth(result: GrowthResult, command: string, when: string): string {
  const rows = Object.keys(result.empty).map((name) => {
    const [a, b] = [result.empty[name], result.grown[name]];
    const drain = name.startsWith("queue");
    const aim = drain ? b >= a * 0.9 : b <= 2 * a && b < 50;
    const figure = (x: number) => (drain ? `${x.toFixed(0)} jobs/s` : `${x.toFixed(1)} ms`);
    const verdict = aim ? "yes" : "**no**";
    const noise = result.emptyA[name] / result.emptyB[name];
    return `| ${name} | ${figure(a)} | ${figure(b)} | ${(b / a).toFixed(2)}× | ${noise.toFixed(2)}× | ${verdict} |`;
  });
  const load = result.loadAverages.map((l) => l.map((x) => x.toFixed(2)).join(", "));
  return [
    `### Growth: one developer's 1 job against ${result.jobs.toLocaleString("en")} jobs (${when.slice(0, 10)})`,
    "",
    `\`${command}\`: two \`server.mjs\` on the production build, each with its own PostgreSQL database and 4 embedded nodes: A, seeded by SQL with a history of ${result.jobs.toLocaleString("en")} jobs over 60 days (each with 4 events, a log line, its charge, a webhook delivery and its usage rollups; a top-up every 1,000 jobs; ${result.seedSeconds.toFixed(0)} s, then VACUUM ANALYZE, as autovacuum would), and its empty twin B, measured in alternation request by request (the drains A B B A ${result.drainCycles} time(s), each server's median), so the machine's load hits both alike. The last column is A against B measured the same way before A was seeded: the bench's own noise. Load average ${load[0]} at the start, ${load[1]} after the seed, ${load[2]} at the end (a 2-core machine shared with other work). Aim (issue 43): every read within 2× of its empty figure and under 50 ms; the drain within 10 %.`,
    "",
    `| read (median of ${result.runs}) | empty (B) | ${result.jobs.toLocaleString("en")} jobs (A) | growth (A ÷ B) | A ÷ B, both empty | aim met |`,
    "| --- | --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}
