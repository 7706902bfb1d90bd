// A throwaway PostgreSQL database per test file (created from TEST_DATABASE_URL, dropped afterwards), so
// runs never see each other's rows.
import { randomBytes } from "node:crypto";
import pg from "pg";

export const usePostgres = () => process.env.TEST_DRIVER === "postgres" && Boolean(process.env.TEST_DATABASE_URL);

export async function createScratchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error("TEST_DATABASE_URL is not set");
  const name = `en_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
