// The README's run command, as a newcomer runs it: on a fresh copy of the checkout, with the default
// DATA_DIR, the real process tree (npm → sh → node server.mjs), killed with -9 as a whole and started again,
// with a dead owner that is a zombie or whose pid now belongs to someone else. One build serves the file:
// the build with DATABASE_URL set (which must leave that database empty) is the one `npm start` then uses.
import { existsSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DataDirInUseError, lockDataDir } from "@/lib/db/data-dir";
import { auditDatabase, describeAudit, openEmbeddedForAudit } from "../support/audit";
import { signUpDeveloper, type Developer } from "../support/developer";
import { eventually, execute, submit, waitForStatus } from "../support/jobs";
import { freePort } from "../support/next-server";
import { createThrowawayDatabase } from "../support/postgres";
import {
  copyProduct,
  processState,
  waitHealthy,
  writeInCopy,
  type ProductCopy,
  type Running,
} from "../support/product-copy";

const readmeRunCommand = "npm start";
const adminUrl = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

let copy: ProductCopy;
let port: number;
let baseUrl: string;
let server: Running | undefined;
const others: Running[] = [];
let developer: Developer;
let key: string;

beforeAll(async () => {
  copy = copyProduct();
  port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await Promise.all([server, ...others].map((running) => running?.kill()));
  copy?.remove();
});

/** Starts the README's command in the copy and waits until it is healthy; every answer on the way is returned. */
async function startProduct() {
  server = copy.spawn(readmeRunCommand, { PORT: String(port) });
  return waitHealthy(baseUrl, server);
}

/** Waits until no process holds the copy's DATA_DIR (a stopped server has finished shutting down). */
function dataDirReleased() {
  return eventually(
    async () => {
      try {
        lockDataDir(copy.dataDir).release();
        return true;
      } catch (error) {
        if (error instanceof DataDirInUseError) return false;
        throw error;
      }
    },
    (free) => free,
    30_000,
  );
}

/** Stops the server the way a supervisor does (SIGTERM to the group) and waits until DATA_DIR is free. */
async function stopProduct() {
  await server?.kill("SIGTERM");
  server = undefined;
  await dataDirReleased();
}

const jobIds = async () =>
  (
    (await (await developer.withKey(key, "/api/developers/jobs?limit=100")).json()) as {
      data: { jobId: string; status: string }[];
    }
  ).data;

describe.sequential("the README's run command on a fresh copy", () => {
  it("builds without side effects: `npm run build` with DATABASE_URL leaves that database empty and writes no DATA_DIR", async () => {
    const database = await createThrowawayDatabase(adminUrl, "en_build");
    try {
      const build = await copy.run("npm run build", { DATABASE_URL: database.url }, 600_000);
      expect(build.code, build.output).toBe(0);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const { rows } = await client.query(
          "select table_name from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema')",
        );
        expect(rows).toEqual([]);
      } finally {
        await client.end();
      }
    } finally {
      await database.drop();
    }
    expect(existsSync(copy.dataDir)).toBe(false);
  }, 660_000);

  it("starts with exactly `npm start` on the default DATA_DIR: 'starting' then healthy, never a 500, and a first job completes", async () => {
    const answers = await startProduct();
    const unexpected = answers.filter(
      (a) => a !== "refused" && a.status !== 200 && !(a.status === 503 && JSON.parse(a.body).status === "starting"),
    );
    expect(unexpected).toEqual([]);
    expect(server?.output()).not.toMatch(/next build/); // the build above is fresh: a restart does not rebuild

    developer = await signUpDeveloper(baseUrl);
    key = await developer.createApiKey();
    const job = await submit(developer, key, "token-count", { text: "Hello, execution network!" });
    expect((await waitForStatus(developer, key, job.jobId)).status).toBe("completed");
    expect(existsSync(path.join(copy.dataDir, "pg"))).toBe(true);
    // Nothing tracked changed and nothing unignored appeared (data, build, generated types).
    expect(copy.gitStatus()).toBe("");
  }, 180_000);

  it("runs operator commands against the running server: credits grant and node-token", async () => {
    const balance = async () =>
      ((await (await developer.withKey(key, "/api/credits/balance")).json()) as { balance: number }).balance;
    const before = await balance();
    const grant = await copy.run(`npm run credits -- grant ${developer.address} 250 --description "Trial extension"`);
    expect(grant.code, grant.output).toBe(0);
    expect(await balance()).toBe(before + 250);

    const issued = await copy.run("npm run node-token -- byo-box --region eu-west");
    expect(issued.code, issued.output).toBe(0);
    const token = /"token":"(node_[\w-]+)"/.exec(issued.output)?.[1];
    const registered = await fetch(`${baseUrl}/api/nodes/register`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "byo-box", region: "eu-west", serviceIds: ["token-count"], concurrency: 1 }),
    });
    expect(registered.status).toBe(200);

    const refused = await copy.run("npm run credits -- grant 0x0000000000000000000000000000000000000001 5");
    expect(refused.code).not.toBe(0);
    expect(refused.output).toMatch(/The account of 0x0+1 was not found/);
  }, 120_000);

  it("refuses a second live server on the same DATA_DIR, a taken port and a bad configuration, each in one line with a non-zero exit, within seconds", async () => {
    const startedAt = Date.now();
    const second = await copy.run(readmeRunCommand, { PORT: String(await freePort()) }, 60_000);
    expect(second.code).not.toBe(0);
    expect(second.output).toMatch(
      /^Execution Network cannot start: The embedded database in \.\/\.data is in use by another process \(pid \d+\)/m,
    );
    expect(second.output).not.toMatch(/next build/); // refused before rebuilding .next under the live server

    // The server's own check, for whoever runs server.mjs without the preflight.
    const direct = await copy.run("node server.mjs", { PORT: String(await freePort()) }, 60_000);
    expect(direct.code).toBe(1);
    expect(direct.output).toMatch(
      /^Execution Network cannot start: The embedded database in \.\/\.data is in use by another process/m,
    );
    // `next start` would serve without the server's edge (methods, unread bodies, the direct routes).
    const nextStart = await copy.run(
      "node node_modules/next/dist/bin/next start",
      { PORT: String(await freePort()), DATA_DIR: "./.data-other" },
      60_000,
    );
    expect(nextStart.code).toBe(1);
    expect(nextStart.output).toMatch(
      /^Execution Network cannot start: start it with `npm start` or `node server\.mjs`/m,
    );

    const portTaken = await copy.run("npm run serve", { PORT: String(port), DATA_DIR: "./.data-other" }, 60_000);
    expect(portTaken.code).not.toBe(0);
    expect(portTaken.output).toMatch(
      new RegExp(`^Execution Network cannot start: port ${port} is already in use`, "m"),
    );
    const misconfigured = await copy.run(
      readmeRunCommand,
      { PORT: String(await freePort()), EMBEDDED_NODES: "-1" },
      60_000,
    );
    expect(misconfigured.code).not.toBe(0);
    expect(misconfigured.output).toMatch(
      /^Execution Network cannot start: Invalid configuration: EMBEDDED_NODES: [^\n]+$/m,
    );
    expect(Date.now() - startedAt).toBeLessThan(60_000);
    expect((await fetch(`${baseUrl}/api/health`)).status).toBe(200);
  }, 200_000);

  it("after kill -9 of the whole process group mid-burst, the same command comes back and every accepted job finishes exactly once", async () => {
    const accepted: string[] = [];
    const burst = Array.from({ length: 60 }, (_, i) =>
      execute(developer, key, i % 2 ? "token-count" : "text-summarize", {
        text: `Burst ${i}. The network routes each job to a node. Nodes run it and report.`,
      })
        .then((res) => (res.status === 202 ? (res.json() as Promise<{ jobId: string }>) : undefined))
        .then(
          (job) => void (job && accepted.push(job.jobId)),
          () => undefined, // cut off by the kill before its answer arrived: never accepted
        ),
    );
    await eventually(
      async () => accepted.length,
      (n) => n >= 15,
      60_000,
    );
    await server?.kill("SIGKILL");
    await Promise.all(burst);

    await startProduct();
    const jobs = await eventually(
      jobIds,
      (list) => list.every((job) => job.status === "completed" || job.status === "failed"),
      120_000,
    );
    expect(jobs.map((job) => job.jobId)).toEqual(expect.arrayContaining(accepted));
    expect(jobs.filter((job) => job.status !== "completed")).toEqual([]);
  }, 300_000);

  it("comes back when the dead owner is a zombie, and when the pid it recorded now belongs to another live process", async () => {
    await server?.kill("SIGKILL");
    await dataDirReleased();
    // A server whose parent never reaps it (a container whose pid 1 is no init): killed, it stays a zombie.
    const owner = copy.spawn(`node server.mjs & echo "server-pid $!"; exec sleep 600`, { PORT: String(port) });
    others.push(owner);
    await waitHealthy(baseUrl, owner);
    const zombie = Number(/server-pid (\d+)/.exec(owner.output())?.[1]);
    process.kill(zombie, "SIGKILL");
    await eventually(
      async () => processState(zombie),
      (state) => state === "Z",
      10_000,
    );
    await startProduct();
    expect(processState(zombie)).toBe("Z");

    // The owner's pid, recorded where owners used to be trusted, is now a live process of someone else.
    await server?.kill("SIGKILL");
    const alive = owner.process.pid ?? process.pid;
    writeInCopy(copy, ".data/owner.lock", JSON.stringify({ pid: alive, since: new Date().toISOString() }));
    writeInCopy(copy, ".data/owner.pid", String(alive));
    await startProduct();
    expect((await getHealth()).status).toBe("ok");
  }, 240_000);

  it("runs operator commands with the server stopped, and the data audits clean: one charge per job, nothing lost", async () => {
    await stopProduct();
    const grant = await copy.run(`npm run credits -- grant ${developer.address} 1`);
    expect(grant.code, grant.output).toBe(0);
    const db = await openEmbeddedForAudit(copy.dataDir);
    try {
      const report = await auditDatabase(db);
      expect(report.violations, describeAudit(report)).toEqual([]);
      expect(report.jobs).toBeGreaterThanOrEqual(16);
    } finally {
      await db.close();
    }
  }, 120_000);
});

async function getHealth() {
  return (await (await fetch(`${baseUrl}/api/health`)).json()) as { status: string };
}
