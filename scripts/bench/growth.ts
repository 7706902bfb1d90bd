// The growth bench (issue 43): the same server (on PostgreSQL, 4 embedded nodes) empty and then after a seeded
// history of one developer's jobs over 60 days (written by SQL with generate_series, each job with its events,
// a log line, its charge and its usage rollups, as the product writes them), after ANALYZE: the reads a developer
// makes on every dashboard visit (median of 15) and a queue drain of 300 jobs.
//   npx tsx scripts/bench/growth.ts [--jobs 1000000] [--database-url postgres://…/rollups_bench]
// The database named is emptied first (use your own). Writes the `growth` section of docs/benchmarks.md.
import { parseArgs } from "node:util";
import pg from "pg";
import { documentFile, writeSections } from "./document";
import { startServerUnderTest, type ServerUnderTest } from "./server";

const { values } = parseArgs({
  options: {
    jobs: { type: "string", default: "1000000" },
    "database-url": { type: "string", default: "postgres://postgres@127.0.0.1:5432/rollups_bench" },
    runs: { type: "string", default: "15" },
  },
});
const seededJobs = Number(values.jobs);
const databaseUrl = String(values["database-url"]);
const runs = Number(values.runs);
const progress = (line: string) => process.stderr.write(`[growth] ${line}\n`);

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

async function timed(server: ServerUnderTest, path: string): Promise<number> {
  const times: number[] = [];
  // One request first, untimed: the first of each route compiles its statements.
  await (await server.developer.withKey(server.apiKey, path)).arrayBuffer();
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const res = await server.developer.withKey(server.apiKey, path);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    times.push(performance.now() - started);
  }
  return median(times);
}

async function drain(server: ServerUnderTest, client: pg.Client, accountId: string, jobs = 300): Promise<number> {
  const since = new Date();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: jobs }, (_, i) =>
      server.developer
        .withKey(server.apiKey, "/api/marketplace/services/token-count/execute", {
          method: "POST",
          body: JSON.stringify({ input: { text: `drain ${i}` } }),
        })
        .then((res) => res.arrayBuffer()),
    ),
  );
  for (;;) {
    const { rows } = await client.query(
      `select count(*)::int as n from jobs where account_id = $1 and created_at >= $2 and status in ('completed', 'failed')`,
      [accountId, since],
    );
    if (rows[0].n >= jobs) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return jobs / ((performance.now() - started) / 1000);
}

async function reads(server: ServerUnderTest, client: pg.Client, accountId: string) {
  const jobId = (await (await server.developer.withKey(server.apiKey, "/api/developers/jobs?limit=1")).json()).data[0]
    .jobId as string;
  return {
    "jobs list, page 1": await timed(server, "/api/developers/jobs?page=1&limit=20"),
    "usage metrics, last 30 days": await timed(server, "/api/developers/metrics"),
    "credit history, page 1": await timed(server, "/api/credits/history?page=1&limit=20"),
    "one job's telemetry": await timed(server, `/api/developers/jobs/${jobId}/telemetry`),
    "queue drain, 300 jobs": await drain(server, client, accountId),
  };
}

/** One developer's history: `n` completed token-count jobs over the 60 days before now, as the product stores them. */
async function seed(client: pg.Client, accountId: string, apiKeyId: string, n: number) {
  const step = (60 * 24 * 3600 * 1000) / n;
  await client.query(
    `create temporary table seeded as
    select gen_random_uuid() as id, now() - make_interval(secs => ($2::float8 * ($1::int - g)) / 1000) as created_at, g
    from generate_series(1, $1::int) g`,
    [n, step],
  );
  progress("seed: jobs");
  await client.query(
    `insert into jobs (id, account_id, api_key_id, service_id, status, progress, input, credit_cost, max_attempts,
       timeout_ms, attempt, event_seq, log_seq, result, created_at, updated_at, started_at, completed_at, charged_at)
     select id, $1, $2, 'token-count', 'completed', 100, '{"text":"seeded"}', 1, 3, 120000, 1, 4, 1,
       '{"summary":"3 tokens","output":{"tokens":3}}', created_at, created_at + interval '40 ms',
       created_at + interval '10 ms', created_at + interval '40 ms', created_at
     from seeded`,
    [accountId, apiKeyId],
  );
  progress("seed: events");
  await client.query(
    `insert into job_events (job_id, sequence, type, attempt, data, created_at)
     select s.id, e.sequence, e.type, e.attempt, '{}'::jsonb, s.created_at
     from seeded s cross join (values (1, 'JOB_CREATED', 0), (2, 'ROUTING_STARTED', 0), (3, 'NODE_ASSIGNED', 1),
       (4, 'EXECUTION_COMPLETED', 1)) e(sequence, type, attempt)`,
  );
  progress("seed: logs");
  await client.query(
    `insert into job_logs (job_id, sequence, level, source, message, created_at)
     select id, 1, 'info', 'node', 'Completed: 3 tokens', created_at from seeded`,
  );
  progress("seed: ledger");
  await client.query(
    `insert into credit_ledger (account_id, type, amount, balance_after, job_id, description, created_at)
     select $1, 'charge', -1, 1000000000000 - g, id, 'token-count job', created_at from seeded order by g`,
    [accountId],
  );
  progress("seed: usage rollups");
  await client.query(
    `insert into usage_rollups as u (account_id, hour, service_id, api_key_id, jobs, completed, credits_charged,
       duration_count, duration_sum_ms, durations)
     select $1, date_trunc('hour', created_at, 'UTC'), 'token-count', $2, count(*), count(*), count(*), count(*),
       40 * count(*), jsonb_build_object((1 + floor(ln(40) / ln(1.05))::int)::text, count(*))
     from seeded group by 2
     on conflict (account_id, hour, service_id, api_key_id) do update set jobs = u.jobs + excluded.jobs,
       completed = u.completed + excluded.completed, credits_charged = u.credits_charged + excluded.credits_charged,
       duration_count = u.duration_count + excluded.duration_count,
       duration_sum_ms = u.duration_sum_ms + excluded.duration_sum_ms,
       durations = excluded.durations`,
    [accountId, apiKeyId],
  );
  await client.query("drop table seeded");
  progress("seed: analyze");
  await client.query("analyze");
}

async function main() {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query("drop schema public cascade; create schema public; drop schema if exists drizzle cascade");
  await admin.end();
  const server = await startServerUnderTest({ driver: "postgres", databaseUrl, embeddedNodes: 4 });
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // A first job, so that the empty server has one job to read the telemetry of.
    await drain(server, client, await accountOf(client), 1);
    const accountId = await accountOf(client);
    const { rows } = await client.query(`select id from api_keys where account_id = $1 and kind = 'standard'`, [
      accountId,
    ]);
    progress("empty: measuring");
    const empty = await reads(server, client, accountId);
    const started = performance.now();
    await seed(client, accountId, rows[0].id as string, seededJobs);
    const seedSeconds = (performance.now() - started) / 1000;
    progress(`seeded ${seededJobs} jobs in ${seedSeconds.toFixed(0)} s; measuring`);
    const grown = await reads(server, client, accountId);
    const lines = [
      `| read (median of ${runs}) | empty | ${seededJobs.toLocaleString("en")} jobs | growth |`,
      "| --- | --- | --- | --- |",
      ...Object.keys(empty).map((name) => {
        const [a, b] = [empty[name as keyof typeof empty], grown[name as keyof typeof grown]];
        const unit = name.startsWith("queue") ? " jobs/s" : " ms";
        return `| ${name} | ${a.toFixed(name.startsWith("queue") ? 0 : 1)}${unit} | ${b.toFixed(name.startsWith("queue") ? 0 : 1)}${unit} | ${(b / a).toFixed(2)}× |`;
      }),
    ];
    const body = [
      `### Growth: the same server empty and after ${seededJobs.toLocaleString("en")} jobs of one developer (${new Date().toISOString().slice(0, 10)})`,
      "",
      `\`npx tsx scripts/bench/growth.ts --jobs ${seededJobs}\` on PostgreSQL (one server process with the route handlers, 4 embedded nodes), the history seeded by SQL over 60 days (each job with 4 events, a log line, its charge and its usage rollups; ${seedSeconds.toFixed(0)} s), then ANALYZE.`,
      "",
      ...lines,
    ].join("\n");
    process.stdout.write(`${body}\n`);
    writeSections(documentFile, [{ name: "growth", body }]);
  } finally {
    await client.end();
    await server.stop();
  }
}

async function accountOf(client: pg.Client): Promise<string> {
  const { rows } = await client.query(`select id from accounts where name = 'Bench Developer'`);
  return rows[0].id as string;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
