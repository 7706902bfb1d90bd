// What PostgreSQL did for the jobs of a phase: statements (pg_stat_statements, when the server loads it),
// rows written per table, WAL written, and the connections the instances held.
import pg from "pg";
import { processSeconds, type BackendsCpu } from "./cpu";

export interface StatementStat {
  query: string;
  /** False for statements run inside another (foreign-key checks, functions): not a round trip. */
  toplevel: boolean;
  calls: number;
  totalMs: number;
  meanMs: number;
  /** Plans made (a prepared statement's cached generic plan makes none) and their mean time, when tracked. */
  plans: number;
  meanPlanMs: number;
}

export interface StatementReport {
  /** Top-level statements executed in the phase's database (every kind, BEGIN/COMMIT included). */
  calls: number;
  totalMs: number;
  /** By total time, largest first. */
  all: StatementStat[];
  top: StatementStat[];
}

export interface TableWrites {
  table: string;
  inserted: number;
  updated: number;
  deleted: number;
}

/** A client on `url` for the duration of `use`. */
export async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** Whether the server has pg_stat_statements loaded; if so the extension is created in the database. */
export async function enableStatementStats(databaseUrl: string): Promise<boolean> {
  return withClient(databaseUrl, async (client) => {
    const { rows } = await client.query<{ libs: string }>("select current_setting('shared_preload_libraries') as libs");
    if (!rows[0].libs.split(",").some((l) => l.trim() === "pg_stat_statements")) return false;
    await client.query("create extension if not exists pg_stat_statements");
    return true;
  });
}

/** Starts counting statements and WAL from now; the returned function reads what happened since. */
export async function measureDatabase(
  databaseUrl: string,
  withStatements: boolean,
): Promise<() => Promise<{ statements?: StatementReport; walBytes: number }>> {
  const walAt = (client: pg.Client) =>
    client.query<{ lsn: string }>("select pg_current_wal_lsn()::text as lsn").then((r) => r.rows[0].lsn);
  const start = await withClient(databaseUrl, async (client) => {
    if (withStatements) await client.query("select pg_stat_statements_reset()");
    return walAt(client);
  });
  return () =>
    withClient(databaseUrl, async (client) => {
      const { rows: wal } = await client.query<{ bytes: string }>(
        "select pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::text as bytes",
        [start],
      );
      const walBytes = Number(wal[0].bytes);
      if (!withStatements) return { walBytes };
      const { rows } = await client.query<{
        query: string;
        toplevel: boolean;
        calls: string;
        total: number;
        plans: string;
        plan_total: number;
      }>(
        `select query, toplevel, calls::text, total_exec_time as total, plans::text, total_plan_time as plan_total
         from pg_stat_statements
         where dbid = (select oid from pg_database where datname = current_database())
           and query not like '%pg_stat_statements%' and query not like '%pg_current_wal_lsn%' and query not like '%pg_stat_activity%'
         order by total_exec_time desc`,
      );
      const all = rows.map((r) => ({
        query: r.query.replace(/\s+/g, " ").trim(),
        toplevel: r.toplevel,
        calls: Number(r.calls),
        totalMs: r.total,
        meanMs: r.total / Number(r.calls),
        plans: Number(r.plans),
        meanPlanMs: Number(r.plans) > 0 ? r.plan_total / Number(r.plans) : 0,
      }));
      const toplevel = all.filter((q) => q.toplevel);
      return {
        walBytes,
        statements: {
          calls: toplevel.reduce((a, s) => a + s.calls, 0),
          totalMs: toplevel.reduce((a, s) => a + s.totalMs, 0),
          all,
          top: all.slice(0, 10),
        },
      };
    });
}

/**
 * Rows inserted/updated/deleted per table over the database's life. Read after the servers stopped: a
 * backend flushes its counters when it exits, an idle one only every few seconds.
 */
export async function readTableWrites(databaseUrl: string): Promise<TableWrites[]> {
  return withClient(databaseUrl, async (client) => {
    const { rows } = await client.query<{ table: string; ins: string; upd: string; del: string }>(
      `select relname as table, n_tup_ins::text as ins, n_tup_upd::text as upd, n_tup_del::text as del
       from pg_stat_user_tables where n_tup_ins + n_tup_upd + n_tup_del > 0 order by n_tup_ins + n_tup_upd + n_tup_del desc`,
    );
    return rows.map((r) => ({
      table: r.table,
      inserted: Number(r.ins),
      updated: Number(r.upd),
      deleted: Number(r.del),
    }));
  });
}

export interface ConnectionPeak {
  /** Most connections open to the database at once (this sampler's own excluded). */
  total: number;
  /** Of those, connections whose last statement was LISTEN (one per instance, held open). */
  listening: number;
}

/** Samples pg_stat_activity every 250 ms until stopped; returns the peak. */
export function sampleConnections(databaseUrl: string): () => Promise<ConnectionPeak> {
  const peak: ConnectionPeak = { total: 0, listening: 0 };
  let stopped = false;
  const loop = withClient(databaseUrl, async (client) => {
    while (!stopped) {
      const { rows } = await client.query<{ total: number; listening: number }>(
        `select count(*)::int as total, count(*) filter (where query ilike 'listen %' or query ilike 'unlisten %')::int as listening
         from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
      );
      peak.total = Math.max(peak.total, rows[0].total);
      peak.listening = Math.max(peak.listening, rows[0].listening);
      await new Promise((r) => setTimeout(r, 250));
    }
  });
  return async () => {
    stopped = true;
    await loop;
    return peak;
  };
}

/**
 * Follows the backends serving `databaseUrl` (pg_stat_activity every 250 ms) and sums their CPU from /proc
 * since each was first seen; a backend that exits keeps what was last read of it. Stop it before the
 * database is dropped.
 */
export function trackBackendsCpu(databaseUrl: string): BackendsCpu & { stop(): Promise<void> } {
  const backends = new Map<number, { first: number; last: number }>();
  const read = (pid: number) => {
    const now = processSeconds(pid);
    if (!Number.isFinite(now)) return;
    const known = backends.get(pid);
    if (known) known.last = now;
    else backends.set(pid, { first: now, last: now });
  };
  let stopped = false;
  const loop = withClient(databaseUrl, async (client) => {
    while (!stopped) {
      const { rows } = await client.query<{ pid: number }>(
        "select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()",
      );
      rows.forEach((r) => read(r.pid));
      await new Promise((r) => setTimeout(r, 250));
    }
  });
  return {
    cpuSeconds() {
      for (const pid of backends.keys()) read(pid);
      let total = 0;
      for (const b of backends.values()) total += b.last - b.first;
      return total;
    },
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
