// Two server instances on one PostgreSQL (CONTRACT §13): one signing key for the deployment, generated once
// however many instances ask first, and one receipt per job, the same bytes whichever instance issues or answers it.
import { afterAll, describe, expect, it } from "vitest";
import { verifyReceipt, type ExecutionJob, type ExecutionReceipt } from "../../lib/client/src/index";
import { signUpDeveloper } from "../support/developer";
import { submit, waitForStatus } from "../support/jobs";
import { createScratchDatabase, usePostgres } from "../support/postgres";
import { startServerProcess, type Child } from "../support/processes";

const children: Child[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(children.map((c) => c.kill()));
  for (const c of cleanups) await c();
});

describe.skipIf(!usePostgres())("receipts on two instances sharing PostgreSQL", { timeout: 120_000 }, () => {
  it("publish one signer, and answer one receipt per job, issued by either", async () => {
    const database = await createScratchDatabase();
    cleanups.push(database.drop);
    const env = { DATABASE_URL: database.url, STARTER_CREDITS: "1000" };
    const [a, b] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    children.push(a, b);
    const urls = [a.ready.baseUrl as string, b.ready.baseUrl as string];

    // Both ask for the deployment's key at once, before any exists.
    const signers = await Promise.all(urls.map(async (url) => (await fetch(`${url}/api/receipts/signers`)).json()));
    expect(signers[1]).toEqual(signers[0]);
    expect(signers[0]).toEqual({ current: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), previous: [] });

    const dev = await signUpDeveloper(urls[0]);
    const key = await dev.createApiKey();
    // Eight completed jobs, each read six times at once (three reads on each instance) before any read of it:
    // the first reads race to issue it, and every read answers the one stored.
    const jobs = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const submitted = await submit(dev, key, "token-count", { text: `one receipt, two instances, ${i}` });
        return (await waitForStatus(dev, key, submitted.jobId)) as unknown as ExecutionJob;
      }),
    );
    const answers = await Promise.all(
      jobs.map((job) =>
        Promise.all(
          [...urls, ...urls, ...urls].map(async (url) => {
            const res = await fetch(`${url}/api/developers/jobs/${job.jobId}/receipt`, {
              headers: { "x-api-key": key },
            });
            expect(res.status).toBe(200);
            return res.text();
          }),
        ),
      ),
    );
    for (const texts of answers) expect(new Set(texts).size).toBe(1);
    const [job] = jobs;
    const receipt = JSON.parse(answers[0][0]) as ExecutionReceipt;
    // Issued by whichever instance read first, it verifies with the signer the other publishes.
    const fromB = await (await fetch(`${urls[1]}/api/receipts/signers`)).json();
    expect(verifyReceipt(job, receipt, { signers: fromB })).toEqual(receipt.message);
  });
});
