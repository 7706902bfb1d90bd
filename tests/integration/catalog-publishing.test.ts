// Which services are enabled is a server's to say (text-generate needs its LLM settings): an operator
// command run from another shell against the same PostgreSQL opens the database, and must change nothing.
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createScratchDatabase, usePostgres } from "../support/postgres";
import { startChild, startServerProcess, type Child } from "../support/processes";

const children: Child[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(children.map((c) => c.kill()));
  for (const c of cleanups) await c();
});

async function statusOf(url: string, serviceId: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ status: string }>("select status from services where id = $1", [serviceId]);
    return rows[0]?.status ?? "missing";
  } finally {
    await client.end();
  }
}

describe.skipIf(!usePostgres())("the service catalog on a shared PostgreSQL", () => {
  it("an operator command without the server's LLM settings leaves text-generate enabled", async () => {
    const database = await createScratchDatabase();
    cleanups.push(database.drop);
    const server = await startServerProcess({
      DATABASE_URL: database.url,
      EMBEDDED_NODES: "0",
      LLM_BASE_URL: "http://127.0.0.1:9/v1",
    });
    children.push(server);
    expect(await statusOf(database.url, "text-generate")).toBe("active");

    expect(process.env.LLM_BASE_URL).toBeUndefined(); // the command's shell has no LLM
    const issued = await startChild("scripts/node-token.ts", ["operator-node"], { DATABASE_URL: database.url });
    children.push(issued);
    expect(issued.ready.token).toEqual(expect.any(String));
    if (issued.process.exitCode === null) await new Promise((resolve) => issued.process.once("exit", resolve));
    expect(await statusOf(database.url, "text-generate")).toBe("active");
    expect(await statusOf(database.url, "token-count")).toBe("active");
  });
});
