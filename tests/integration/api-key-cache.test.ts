// Key lookups are cached in each server instance for a few seconds; revoking or rotating a key must still
// kill it at once on every instance, including one that has just cached it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUpDeveloper, type Developer } from "../support/developer";
import { expectError } from "../support/expect-error";
import { createScratchDatabase, usePostgres } from "../support/postgres";
import { startServerProcess, type Child } from "../support/processes";

// Two instances need a shared PostgreSQL: this runs in the postgres project.
describe.skipIf(!usePostgres())("API keys on two server instances of one PostgreSQL", () => {
  const children: Child[] = [];
  let drop: () => Promise<void> = async () => undefined;
  let dev: Developer;
  let otherInstance: string;

  beforeAll(async () => {
    const database = await createScratchDatabase();
    drop = database.drop;
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
});

/** The keyId of a secret, from the developer's key list (matched by its prefix). */
async function keyIdOf(dev: Developer, key: string): Promise<{ keyId: string }> {
  const keys = (await (await dev.session("/api/developers/keys")).json()) as { keyId: string; prefix: string }[];
  const found = keys.find((k) => k.prefix === key.slice(4, 12));
  if (!found) throw new Error("the key is not listed");
  return found;
}
