// A throwaway PostgreSQL database (same server, random name), created from an admin URL and dropped
// afterwards, so runs never see each other's rows. Used by the test suites and the benchmark.
import { randomBytes } from "node:crypto";
import pg from "pg";

export const usePostgres = () => process.env.TEST_DRIVER === "postgres" && Boolean(process.env.TEST_DATABASE_URL);

/** How many connections to `admin`'s database there are besides `admin`'s own. */
export async function otherConnections(admin: pg.Client): Promise<number> {
  const { rows } = await admin.query<{ n: number }>(
    "select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()",
  );
  return rows[0].n;
}

export async function createThrowawayDatabase(
  adminUrl: string,
  prefix: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** A database for one test file, from TEST_DATABASE_URL. */
export function createScratchDatabase() {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error("TEST_DATABASE_URL is not set");
  return createThrowawayDatabase(adminUrl, "en_test");
}
