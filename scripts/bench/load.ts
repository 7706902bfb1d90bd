// `npm run bench:load`: a bounded soak of mixed traffic (submissions, polling, SSE, lists, dashboard pages)
// against two `server.mjs` instances sharing one PostgreSQL database, with three standalone nodes. Reports
// requests/s, p99 per route, the error rate (429s counted apart), each process's memory at start and end,
// and the database audit; writes them into docs/benchmarks.md (its own section).
// Options: --minutes <n> (default 10) or --seconds <n>, --users <n> virtual users (default 8).
// DATABASE_URL (an admin URL; a throwaway database is created on it) defaults to 127.0.0.1:5432/test.
import { readFileSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { auditDatabase, describeAudit, type AuditReport } from "@/tests/support/audit";
import { signUpDeveloper, workloadScopes, type Developer } from "@/tests/support/developer";
import { createThrowawayDatabase } from "@/tests/support/postgres";
import { startNodeProcess, type Child } from "@/tests/support/processes";
import { ensureBuild, startNextServer, type NextServer } from "@/tests/fuzz/next-server";
import { flag } from "../cli";
import { documentFile, writeSections } from "./document";
import { ms, perSecond, summarize, table } from "./stats";
import { rerunOnSupportedNode } from "./supported-node";

const say = (line: string) => process.stderr.write(`[load] ${line}\n`);
const seconds = Number(flag("seconds") ?? Number(flag("minutes", "10")) * 60);
const users = Number(flag("users", "8"));
if (!(seconds > 0) || !(users > 0)) throw new Error("--minutes/--seconds and --users must be positive numbers");
const ports = [3748, 3749];
const adminUrl = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test";
const docFile = path.join(process.cwd(), documentFile);

/** Resident memory of a process group (a server and the workers it forks), from /proc. */
function rssOfGroup(pgid: number): number {
  let kb = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) !== pgid) continue;
      const rss = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${entry}/status`, "utf8"));
      kb += Number(rss?.[1] ?? 0);
    } catch {
      // the process ended meanwhile
    }
  }
  return kb / 1024;
}

interface Sample {
  route: string;
  status: number;
  ms: number;
}

const serviceInputs: [string, unknown][] = [
  ["token-count", { text: "How many tokens is this sentence?" }],
  ["text-sentiment", { text: "The soak test went remarkably well today." }],
  [
    "text-summarize",
    { text: "Load tests find problems. They run for minutes. They mix traffic. This one writes a report." },
  ],
  ["language-detect", { text: "This is an ordinary English sentence about load testing and servers." }],
];

/**
 * Liveness through the soak: GET /api/health/live every ~100 ms, alternating instances, timed like the
 * users' requests (issue 11: it must stay fast while nodes work).
 */
async function probeLiveness(servers: string[], until: number, samples: Sample[]) {
  for (let i = 0; Date.now() < until; i++) {
    const started = performance.now();
    let status = 0;
    try {
      const res = await fetch(`${servers[i % servers.length]}/api/health/live`, {
        signal: AbortSignal.timeout(30_000),
      });
      status = res.status;
      await res.arrayBuffer();
    } catch {
      status = 0;
    }
    samples.push({ route: "GET /api/health/live", status, ms: performance.now() - started });
    const wait = 100 - (performance.now() - started);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
}

/** One virtual user: a developer's mix of API calls and dashboard page views, alternating servers. */
async function virtualUser(
  index: number,
  servers: string[],
  dev: Developer,
  key: string,
  until: number,
  samples: Sample[],
  jobs: string[],
) {
  const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
  const timed = async (
    route: string,
    send: () => Promise<Response>,
    consume: (res: Response) => Promise<unknown> = (res) => res.text(),
  ) => {
    const started = performance.now();
    let status = 0;
    try {
      const res = await send();
      status = res.status;
      await consume(res);
    } catch {
      status = 0;
    }
    samples.push({ route, status, ms: performance.now() - started });
    return status;
  };
  for (let i = 0; Date.now() < until; i++) {
    const base = servers[(index + i) % servers.length];
    const withKey = (p: string, init: RequestInit = {}) =>
      fetch(`${base}${p}`, {
        ...init,
        headers: { "x-api-key": key, "content-type": "application/json", ...(init.headers as Record<string, string>) },
      });
    const roll = Math.random();
    const recent = jobs.length ? pick(jobs.slice(-50)) : undefined;
    if (roll < 0.25 || !recent) {
      const [serviceId, input] = pick(serviceInputs);
      await timed(
        "POST execute",
        () =>
          withKey(`/api/marketplace/services/${serviceId}/execute`, {
            method: "POST",
            body: JSON.stringify({ input }),
          }),
        async (res) => {
          const body = (await res.json()) as { jobId?: string };
          if (body.jobId) jobs.push(body.jobId);
        },
      );
    } else if (roll < 0.5) {
      await timed("GET job", () => withKey(`/api/developers/jobs/${recent}`));
    } else if (roll < 0.62) {
      await timed("GET jobs list", () => withKey("/api/developers/jobs?limit=20"));
    } else if (roll < 0.67) {
      await timed("GET telemetry", () => withKey(`/api/developers/jobs/${recent}/telemetry`));
    } else if (roll < 0.75) {
      await timed("GET credits", () => withKey(pick(["/api/credits/balance", "/api/credits/history?limit=20"])));
    } else if (roll < 0.8) {
      // SSE: read the stream until the job's final status closes it (at most 10 s).
      await timed("SSE events", () =>
        withKey(`/api/developers/jobs/${recent}/events`, { signal: AbortSignal.timeout(10_000) }),
      );
    } else {
      const page = pick(["/overview", "/jobs", "/keys", "/credits", "/services"]);
      await timed("page (dashboard)", () =>
        fetch(`${base}${page}`, { headers: { cookie: dev.cookie }, redirect: "manual" }),
      );
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

const servers: NextServer[] = [];
const nodes: Child[] = [];
let database: { url: string; drop(): Promise<void> } | undefined;

/** Stops every process this soak started (their whole process groups) and drops the database. */
async function cleanUp() {
  await Promise.allSettled(nodes.splice(0).map((n) => n.kill("SIGTERM")));
  await Promise.allSettled(servers.splice(0).map((s) => s.stop()));
  await database?.drop();
  database = undefined;
}

async function main() {
  const rerun = rerunOnSupportedNode(say);
  if (rerun !== undefined) process.exit(rerun);
  await ensureBuild(say);
  database = await createThrowawayDatabase(adminUrl, "en_load");
  const memory = new Map<string, { start: number; end?: number; pgid: number }>();
  try {
    const origins = ports.map((p) => `http://127.0.0.1:${p}`);
    const env = {
      DATABASE_URL: database.url,
      APP_ORIGIN: origins.join(","),
      SESSION_SECRET: "load-soak-session-secret-that-is-long-enough-0123",
      STARTER_CREDITS: String(10 ** 12),
      EMBEDDED_NODES: "0",
      LOG_LEVEL: "error",
    };
    for (const port of ports) servers.push(await startNextServer(port, env));
    process.env.DATABASE_URL = database.url;
    const { issueNodeToken } = await import("@/lib/network/coordinator");
    for (let i = 0; i < 3; i++) {
      const { token } = await issueNodeToken(`load-node-${i}`, { region: "load" });
      nodes.push(
        await startNodeProcess(origins[i % origins.length], token, ["--name", `load-node-${i}`, "--concurrency", "4"], {
          LOG_LEVEL: "error",
        }),
      );
    }
    servers.forEach((s, i) => memory.set(`server ${i + 1} (server.mjs)`, { start: rssOfGroup(s.pid), pgid: s.pid }));
    nodes.forEach((n, i) =>
      memory.set(`node ${i + 1}`, { start: rssOfGroup(n.process.pid ?? 0), pgid: n.process.pid ?? 0 }),
    );

    const dev = await signUpDeveloper(origins[0], { name: "Load Developer" });
    const keys = await Promise.all(Array.from({ length: users }, () => dev.createApiKey(workloadScopes)));
    say(
      `${users} virtual users for ${seconds} s against ${origins.join(" and ")}, 3 nodes, database ${new URL(database.url).pathname.slice(1)}`,
    );
    const samples: Sample[] = [];
    const jobs: string[] = [];
    const started = Date.now();
    const until = started + seconds * 1000;
    const ticker = setInterval(
      () => say(`${Math.round((Date.now() - started) / 1000)} s: ${samples.length} requests`),
      30_000,
    );
    await Promise.all([
      ...keys.map((key, i) => virtualUser(i, origins, dev, key, until, samples, jobs)),
      probeLiveness(origins, until, samples),
    ]);
    clearInterval(ticker);
    const elapsed = (Date.now() - started) / 1000;
    for (const m of memory.values()) m.end = rssOfGroup(m.pgid);

    // Every submitted job must finish; then the data must audit clean.
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    let audit: AuditReport;
    try {
      const deadline = Date.now() + 120_000;
      while (Date.now() < deadline) {
        const { rows } = await db.query<{ n: number }>(
          "select count(*)::int as n from jobs where status not in ('completed', 'failed')",
        );
        if (rows[0].n === 0) break;
        await new Promise((r) => setTimeout(r, 1_000));
      }
      audit = await auditDatabase(db);
      const statuses = await db.query<{ status: string; n: number }>(
        "select status, count(*)::int as n from jobs group by status order by status",
      );
      say(`jobs: ${statuses.rows.map((r) => `${r.status} ${r.n}`).join(", ")}`);
    } finally {
      await db.end();
    }
    const section = render({ elapsed, samples, memory, audit, jobs: jobs.length });
    process.stdout.write(`${section}\n`);
    writeSections(docFile, [{ name: "load-soak", body: section }]);
    say(`written to ${path.relative(process.cwd(), docFile)}`);
  } finally {
    await cleanUp();
  }
}

function render(r: {
  elapsed: number;
  samples: Sample[];
  memory: Map<string, { start: number; end?: number }>;
  audit: AuditReport;
  jobs: number;
}): string {
  const routes = [...new Set(r.samples.map((s) => s.route))].sort();
  // A dashboard page must answer 200: a redirect to sign-in would mean the session was lost.
  const isError = (s: Sample) =>
    s.status !== 429 && (s.status === 0 || s.status >= 400 || (s.route === "page (dashboard)" && s.status !== 200));
  const rows = routes.map((route) => {
    const of = r.samples.filter((s) => s.route === route);
    const sum = summarize(of.map((s) => s.ms));
    return [
      route,
      String(of.length),
      perSecond(of.length / r.elapsed),
      ms(sum.p50),
      ms(sum.p99),
      ms(sum.max),
      String(of.filter((s) => s.status === 429).length),
      String(of.filter(isError).length),
    ];
  });
  const total = r.samples.length;
  const errors = r.samples.filter(isError);
  const limited = r.samples.filter((s) => s.status === 429).length;
  const errorKinds = [...new Set(errors.map((e) => `${e.route} → ${e.status || "no answer"}`))];
  const memoryRows = [...r.memory].map(([name, m]) => [
    name,
    `${m.start.toFixed(0)} MB`,
    `${(m.end ?? Number.NaN).toFixed(0)} MB`,
  ]);
  return [
    "## Load soak (`npm run bench:load`)",
    "",
    `Run ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, ${(r.elapsed / 60).toFixed(1)} minutes, ${users} virtual users (each its own API key, ~20 ms think time), ` +
      `two \`server.mjs\` instances sharing one PostgreSQL database (throwaway, on the machine's server), three standalone nodes (concurrency 4), ` +
      `product defaults otherwise (rate limits on); a liveness probe (\`GET /api/health/live\` every ~100 ms, alternating instances) runs throughout and is counted with the requests. ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown CPU"}), Node ${process.version}, ` +
      `load average at the end ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(" / ")}: the machine is shared with other work, so the figures are a floor, not a capacity.`,
    "",
    `**${total} requests in ${r.elapsed.toFixed(0)} s = ${perSecond(total / r.elapsed)}**; ${r.jobs} jobs submitted; errors other than 429: ${errors.length} ` +
      `(${((errors.length / Math.max(1, total)) * 100).toFixed(2)} %)${errorKinds.length ? `: ${errorKinds.slice(0, 8).join("; ")}` : ""}; 429s: ${limited}.`,
    "",
    table(["route", "requests", "rate", "p50", "p99", "max", "429", "errors"], rows),
    "",
    "Memory (resident, whole process group):",
    "",
    table(["process", "start", "end"], memoryRows),
    "",
    `Audit after every job finished: ${describeAudit(r.audit)}.`,
  ].join("\n");
}

process.once("SIGINT", () => void cleanUp().finally(() => process.exit(130)));

main().then(
  () => process.exit(0),
  (error: unknown) => {
    say(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
