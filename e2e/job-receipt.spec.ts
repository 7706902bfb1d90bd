// A completed job's receipt on its page (CONTRACT §13): verified in the browser against the deployment's
// signers, and downloadable as the JSON the API answers, for a third party to check.
import { readFile } from "node:fs/promises";
import { expect, test } from "@playwright/test";
import { runJob, signInNewDeveloper } from "./dashboard-session";

test("a developer sees a completed job's receipt verified on its page and downloads it", async ({ page, baseURL }) => {
  const dev = await signInNewDeveloper(page, baseURL as string);
  const job = await runJob(page.request, dev.apiKey, "token-count", { text: "A result worth proving." });
  await page.goto(`/jobs/${job.jobId}`);
  await expect(page.getByTestId("job-status")).toHaveText("completed", { timeout: 60_000 });

  await test.step("the receipt is verified in the browser and names the deployment's signer", async () => {
    const signers = (await (await page.request.get("/api/receipts/signers")).json()) as { current: string };
    const panel = page.getByRole("region", { name: "Receipt" });
    await expect(panel).toContainText(`Receipt verified · signed by ${signers.current}`, { timeout: 30_000 });
  });

  await test.step("Download JSON saves the receipt the API answers", async () => {
    const downloading = page.waitForEvent("download");
    await page.getByRole("button", { name: "Download JSON" }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe(`receipt-${job.jobId}.json`);
    const saved = await readFile(await download.path(), "utf8");
    const answered = await page.request.get(`/api/developers/jobs/${job.jobId}/receipt`, {
      headers: { "x-api-key": dev.apiKey },
    });
    // Byte for byte: a verifier that hashes or signs over the file gets what the API answered.
    expect(saved).toBe(await answered.text());
  });
});
