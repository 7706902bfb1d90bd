// Two server instances on one PostgreSQL (CONTRACT §13): one signing key for the deployment, generated once
// however many instances ask first, and one receipt per job, the same bytes whichever instance issues or answers it.
// A rotation while both run reaches the instance that did not make it within its signer cache's second.
import { afterAll, describe, expect, it } from "vitest";
import { verifyReceipt, type ExecutionJob, type ExecutionReceipt } from "../../lib/client/src/index";
import { signUpDeveloper, type Developer } from "../support/developer";
import { submit, waitForStatus } from "../support/jobs";
import { createScratchDatabase, usePostgres } from "../support/postgres";
import { startChild, startServerProcess, type Child } from "../support/processes";

const children: Child[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(children.map((c) => c.kill()));
  for (const c of cleanups) await c();
});

describe.skipIf(!usePostgres())("receipts on two instances sharing PostgreSQL", { timeout: 120_000 }, () => {
  let env: Record<string, string>;
  let urls: string[];
  let dev: Developer;
  let key: string;

  it("publish one signer, and answer one receipt per job, issued by either", async () => {
    const database = await createScratchDatabase();
    cleanups.push(database.drop);
    // Several instances share one SESSION_SECRET, as the README asks: the signing key is sealed under it.
    env = {
      DATABASE_URL: database.url,
      STARTER_CREDITS: "1000",
      SESSION_SECRET: "receipts-on-two-instances-secret-0123456789",
    };
    const [a, b] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    children.push(a, b);
    urls = [a.ready.baseUrl as string, b.ready.baseUrl as string];

    // Both ask for the deployment's key at once, before any exists.
    const signers = await Promise.all(urls.map(async (url) => (await fetch(`${url}/api/receipts/signers`)).json()));
    expect(signers[1]).toEqual(signers[0]);
    expect(signers[0]).toEqual({ current: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), previous: [] });

    dev = await signUpDeveloper(urls[0]);
    key = await dev.createApiKey();
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

  it("rotated while both run: after a second, either instance signs new receipts with the new key", async () => {
    const before = await (await fetch(`${urls[0]}/api/receipts/signers`)).json();
    const rotated = await startChild("scripts/receipts.ts", ["rotate"], env);
    children.push(rotated);
    expect(rotated.ready).toMatchObject({ retired: before.current });
    // Each instance holds the current signer for at most a second; neither is asked for the list before
    // issuing, so only the cache's expiry can bring the new key.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    for (const url of urls) {
      const submitted = await submit(dev, key, "token-count", { text: `after the rotation, on ${url}` });
      const job = (await waitForStatus(dev, key, submitted.jobId)) as unknown as ExecutionJob;
      const res = await fetch(`${url}/api/developers/jobs/${job.jobId}/receipt`, { headers: { "x-api-key": key } });
      expect(res.status, await res.clone().text()).toBe(200);
      const receipt = (await res.json()) as ExecutionReceipt;
      expect(receipt.signer).toBe(rotated.ready.current);
      const signers = await (await fetch(`${url}/api/receipts/signers`)).json();
      expect(signers).toEqual({ current: rotated.ready.current, previous: [before.current] });
      expect(verifyReceipt(job, receipt, { signers })).toEqual(receipt.message);
    }
  });
});
