// The receipt signing key across restarts and rotations (CONTRACT §13): a generated key is kept (the same signer
// after a restart), `npm run receipts -- rotate` and a changed RECEIPT_SIGNING_KEY each move the old address to
// `previous`, every receipt issued before keeps its bytes and still verifies, and the key never shows in a
// response or the server's output.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect, it } from "vitest";
import { verifyReceipt, type ExecutionJob, type ExecutionReceipt } from "../../lib/client/src/index";
import { signUpDeveloper } from "../support/developer";
import { eventually } from "../support/jobs";
import { createScratchDatabase, usePostgres } from "../support/postgres";
import { startChild, startServerProcess, type Child } from "../support/processes";

const dataDir = mkdtempSync(path.join(tmpdir(), "en-receipts-"));
const children: Child[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(children.map((c) => c.kill()));
  for (const c of cleanups) await c();
  rmSync(dataDir, { recursive: true, force: true });
});

type Signers = { current: string; previous: string[] };
interface Receipted {
  job: ExecutionJob;
  text: string;
}

let env: Record<string, string>;
let server: Child;
let baseUrl: string;
let key: string;
const receipted: Receipted[] = [];
const responses: string[] = [];

async function start(extra: Record<string, string> = {}) {
  server = await startServerProcess({ ...env, ...extra });
  children.push(server);
  baseUrl = server.ready.baseUrl as string;
}
async function stop() {
  await server.kill("SIGTERM");
}
async function read(pathname: string): Promise<string> {
  const res = await fetch(`${baseUrl}${pathname}`, { headers: { "x-api-key": key } });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  responses.push(text);
  return text;
}
const signers = async () => JSON.parse(await read("/api/receipts/signers")) as Signers;

/** Runs a job to completion and reads its receipt. */
async function completedJobWithReceipt(): Promise<Receipted> {
  const res = await fetch(`${baseUrl}/api/marketplace/services/token-count/execute`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify({ input: { text: `receipt ${receipted.length}` } }),
  });
  const { jobId } = (await res.json()) as ExecutionJob;
  const job = await eventually(
    async () => JSON.parse(await read(`/api/developers/jobs/${jobId}`)) as ExecutionJob,
    (j) => j.status === "completed",
  );
  const done = { job, text: await read(`/api/developers/jobs/${jobId}/receipt`) };
  receipted.push(done);
  return done;
}
const signerOf = ({ text }: Receipted) => (JSON.parse(text) as ExecutionReceipt).signer;

/** Every receipt issued so far: the same bytes as when issued, and verifiable against today's signers. */
async function expectEarlierReceiptsStand() {
  const list = await signers();
  for (const { job, text } of receipted) {
    expect(await read(`/api/developers/jobs/${job.jobId}/receipt`)).toBe(text);
    expect(() => verifyReceipt(job, JSON.parse(text) as ExecutionReceipt, { signers: list })).not.toThrow();
  }
}

// Restarts of a real server process (each start migrates and starts its node) on a shared 2-core machine.
describe("the receipt signing key", { timeout: 180_000 }, () => {
  it("is generated once and kept: after a restart the same signer, the same receipt", async () => {
    const database = usePostgres() ? await createScratchDatabase() : undefined;
    if (database) cleanups.push(database.drop);
    env = {
      DATA_DIR: dataDir,
      PORT: "0",
      STARTER_CREDITS: "1000",
      // The server and the operator command open the same sealed key.
      SESSION_SECRET: "receipts-test-session-secret-0123456789abcdef",
      ...(database ? { DATABASE_URL: database.url } : {}),
    };
    await start();
    const dev = await signUpDeveloper(baseUrl);
    key = await dev.createApiKey();
    const first = await completedJobWithReceipt();
    const before = await signers();
    expect(before.previous).toEqual([]);
    expect(signerOf(first)).toBe(before.current);

    await stop();
    await start();
    expect(await signers()).toEqual(before);
    await expectEarlierReceiptsStand();
  });

  it("rotated by the operator command: new receipts by the new key, the old address in previous", async () => {
    const before = await signers();
    // The embedded database is one process's: the command runs while the server is stopped.
    await stop();
    const rotated = await startChild("scripts/receipts.ts", ["rotate"], env);
    children.push(rotated);
    expect(rotated.ready).toEqual({ current: expect.stringMatching(/^0x/), retired: before.current });
    await start();
    expect(await signers()).toEqual({ current: rotated.ready.current, previous: [before.current] });
    expect(signerOf(await completedJobWithReceipt())).toBe(rotated.ready.current);
    await expectEarlierReceiptsStand();
  });

  it("rotated by RECEIPT_SIGNING_KEY: that key signs, the others stay previous, and it is never shown", async () => {
    const before = await signers();
    const configuredKey = generatePrivateKey();
    const configured = privateKeyToAccount(configuredKey).address;
    await stop();
    await start({ RECEIPT_SIGNING_KEY: configuredKey });
    expect(await signers()).toEqual({ current: configured, previous: [before.current, ...before.previous] });
    expect(signerOf(await completedJobWithReceipt())).toBe(configured);
    await expectEarlierReceiptsStand();
    const secret = configuredKey.slice(2);
    expect(responses.some((text) => text.toLowerCase().includes(secret))).toBe(false);
    expect(server.output().toLowerCase()).not.toContain(secret);
  });
});
