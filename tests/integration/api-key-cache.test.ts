// Key lookups are cached in each server instance for a few seconds; revoking or rotating a key must still
// kill it at once on every instance, including one that has just cached it.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listenerApplicationName } from "@/lib/db/postgres";
import { signUpDeveloper, type Developer } from "../support/developer";
import { expectError } from "../support/expect-error";
import { createScratchDatabase, usePostgres } from "../support/postgres";
import { startServerProcess, type Child } from "../support/processes";

/** The scratch database both instances share. */
let databaseUrl: string;

// Two instances need a shared PostgreSQL: this runs in the postgres project.
describe.skipIf(!usePostgres())("API keys on two server instances of one PostgreSQL", () => {
  const children: Child[] = [];
  let drop: () => Promise<void> = async () => undefined;
  let dev: Developer;
  let otherInstance: string;

  beforeAll(async () => {
    const database = await createScratchDatabase();
    drop = database.drop;
    databaseUrl = database.url;
    const env = { DATABASE_URL: database.url, EMBEDDED_NODES: "0", RATE_LIMIT_PER_MINUTE: "0" };
    const [a, b] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    children.push(a, b);
    dev = await signUpDeveloper(a.ready.baseUrl as string);
    otherInstance = b.ready.baseUrl as string;
  });
  afterAll(async () => {
    await Promise.all(children.map((c) => c.kill()));
    await drop();
  });

  /** A read on the instance the developer did not manage the key on. */
  const useOnOtherInstance = (key: string) =>
    fetch(`${otherInstance}/api/credits/balance`, { headers: { "x-api-key": key } });

  it("a key revoked on one instance fails at once on the other, which had just used it", async () => {
    const key = await dev.createApiKey();
    const { keyId } = await keyIdOf(dev, key);
    expect((await useOnOtherInstance(key)).status).toBe(200);

    expect((await dev.session(`/api/developers/keys/${keyId}`, { method: "DELETE" })).status).toBe(200);

    await expectError(await useOnOtherInstance(key), 401, "INVALID_API_KEY");
  });

  it("a key rotated on one instance: its old secret fails at once on the other, its new one works there", async () => {
    const key = await dev.createApiKey();
    const { keyId } = await keyIdOf(dev, key);
    expect((await useOnOtherInstance(key)).status).toBe(200);

    const rotated = (await (await dev.session(`/api/developers/keys/${keyId}/rotate`, { method: "POST" })).json()) as {
      key: string;
    };

    await expectError(await useOnOtherInstance(key), 401, "INVALID_API_KEY");
    expect((await useOnOtherInstance(rotated.key)).status).toBe(200);
  });

  it("a key revoked while PostgreSQL holds the other instance's notifications back still fails there at once", async (ctx) => {
    const key = await dev.createApiKey();
    const { keyId } = await keyIdOf(dev, key);
    expect((await useOnOtherInstance(key)).status).toBe(200);
    // The other instance's listening connection: while its backend is stopped, its notifications wait in
    // PostgreSQL, as they can behind a busy machine; the revoking instance still hears its own at once.
    const backend = await listeningBackendOf(children[1]);
    if (!canSignal(backend)) ctx.skip("this user cannot signal PostgreSQL's processes");
    process.kill(backend, "SIGSTOP");
    const resumed = new Promise<void>((resolve) =>
      setTimeout(() => resolve(process.kill(backend, "SIGCONT") && undefined), 300),
    );
    try {
      expect((await dev.session(`/api/developers/keys/${keyId}`, { method: "DELETE" })).status).toBe(200);
      await expectError(await useOnOtherInstance(key), 401, "INVALID_API_KEY");
    } finally {
      await resumed;
    }
  });
});

/** The PostgreSQL backend of a server process's listening connection (it names its process). */
async function listeningBackendOf(instance: Child): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      "select pid from pg_stat_activity where application_name = $1",
      [listenerApplicationName(instance.process.pid as number)],
    );
    expect(rows).toHaveLength(1);
    return rows[0].pid;
  } finally {
    await client.end();
  }
}

/** Whether this process may send signals to `pid` (signal 0 only checks). */
function canSignal(pid: number): boolean {
  try {
    return process.kill(pid, 0);
  } catch {
    return false;
  }
}

/** The keyId of a secret, from the developer's key list (matched by its prefix). */
async function keyIdOf(dev: Developer, key: string): Promise<{ keyId: string }> {
  const keys = (await (await dev.session("/api/developers/keys")).json()) as { keyId: string; prefix: string }[];
  const found = keys.find((k) => k.prefix === key.slice(4, 12));
  if (!found) throw new Error("the key is not listed");
  return found;
}
