// After a fuzz run: every row that changed must be explained by a request that succeeded. A rejected
// request (4xx) must have changed nothing: no job, no charge, no key, no profile field.
import type { Queryable } from "../support/audit";

export interface Snapshot {
  keys: Map<string, string>;
  jobs: Set<string>;
  profiles: Map<string, string>;
  ledger: Set<string>;
}

const rowsOf = async <T>(db: Queryable, text: string) => (await db.query(text)).rows as T[];

export async function snapshot(db: Queryable): Promise<Snapshot> {
  const keys = await rowsOf<{ id: string; state: string }>(
    db,
    `select id, concat_ws('|', name, revoked_at, secret_hash, previous_secret_hash, previous_expires_at, expires_at, array_to_string(scopes, ',')) as state from api_keys`,
  );
  const jobs = await rowsOf<{ id: string }>(db, "select id from jobs");
  const profiles = await rowsOf<{ id: string; state: string }>(
    db,
    "select id, concat_ws('|', name, email, organization, profile_created_at) as state from accounts",
  );
  const ledger = await rowsOf<{ id: string }>(db, "select id from credit_ledger");
  return {
    keys: new Map(keys.map((r) => [r.id, r.state])),
    jobs: new Set(jobs.map((r) => r.id)),
    profiles: new Map(profiles.map((r) => [r.id, r.state])),
    ledger: new Set(ledger.map((r) => r.id)),
  };
}

/**
 * Lists the changes between two snapshots that no successful request explains. `touched` holds the ids
 * named by successful non-GET requests (in their path or response); `profileWrites` whether any profile
 * write succeeded.
 */
export async function unexplainedChanges(
  db: Queryable,
  before: Snapshot,
  touched: Set<string>,
  profileWrites: boolean,
): Promise<string[]> {
  const after = await snapshot(db);
  const problems: string[] = [];
  for (const [id, state] of after.keys) {
    if (before.keys.get(id) !== state && !touched.has(id))
      problems.push(
        `API key ${id} ${before.keys.has(id) ? "changed" : "appeared"} without a successful request naming it`,
      );
  }
  const newJobs = [...after.jobs].filter((id) => !before.jobs.has(id));
  for (const id of newJobs)
    if (!touched.has(id)) problems.push(`job ${id} appeared without a successful request returning it`);
  for (const [id, state] of after.profiles) {
    if (before.profiles.has(id) && before.profiles.get(id) !== state && !profileWrites)
      problems.push(`profile of account ${id} changed without a successful profile write`);
  }
  const entries = await rowsOf<{ id: string; job_id: string | null; type: string }>(
    db,
    "select id, job_id, type from credit_ledger",
  );
  for (const e of entries) {
    if (before.ledger.has(e.id)) continue;
    if (!e.job_id || (!touched.has(e.job_id) && !after.jobs.has(e.job_id)))
      problems.push(`ledger entry ${e.id} (${e.type}) for no job a successful request created`);
    else if (e.type === "charge" && !touched.has(e.job_id))
      problems.push(`charge ${e.id} for job ${e.job_id} that no successful request created`);
  }
  return problems;
}
