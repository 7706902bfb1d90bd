// The job page as a developer watches it: a sentiment job completing live with its events in order, an
// OCR job failing at run time with its refund, the job in the filtered jobs list, and another developer
// kept out.
import { expect, test, type Locator, type Page } from "@playwright/test";
import { formatCredits } from "../lib/contract/credit-words";
import { busyPageOfText, pngWithCorruptImageData, runJob, signInNewDeveloper } from "./dashboard-session";
import { e2eNodeSlots } from "./embedded-node";

const happyPathTypes = [
  "JOB_CREATED",
  "WORKFLOW_INITIALIZED",
  "ROUTING_STARTED",
  "NODE_ASSIGNED",
  "EXECUTION_STARTED",
  "RESULT_STORED",
  "EXECUTION_COMPLETED",
];

/** The event types as the Timeline list shows them, in order. */
async function timelineTypes(page: Page): Promise<string[]> {
  const items = page.getByRole("list", { name: "Timeline" }).getByRole("listitem");
  const texts = await items.allInnerTexts();
  return texts.map((t) => /\b([A-Z]+(?:_[A-Z]+)+)\b/.exec(t)?.[1] ?? "?");
}

test("a developer watches a text-sentiment job complete on its page, then finds it in the filtered jobs list", async ({
  page,
  baseURL,
}) => {
  const dev = await signInNewDeveloper(page, baseURL as string);

  const createdAt = Date.now();
  const job = await runJob(page.request, dev.apiKey, "text-sentiment", {
    text: "I love this product. The support team was wonderful and fast.",
  });
  await page.goto(`/jobs/${job.jobId}`);

  await test.step("the page reaches completed with the result", async () => {
    await expect(page.getByTestId("job-status")).toHaveText("completed", { timeout: 30_000 });
    const result = page.getByRole("region", { name: "Result" });
    await expect(result).toBeVisible();
    await expect(result.getByText("positive", { exact: false }).first()).toBeVisible();
    await expect(result.getByRole("meter", { name: /Sentiment score/ })).toBeVisible();
    await expect(page.getByRole("list", { name: "Timeline" }).getByText("EXECUTION_COMPLETED")).toBeVisible();
    const seenMs = Date.now() - createdAt;
    test.info().annotations.push({ type: "creation-to-completed-timeline-ms", description: String(seenMs) });
    console.log(`text-sentiment: creation → completed timeline in the browser: ${seenMs} ms`);
  });

  await test.step("every event is listed once, in sequence order", async () => {
    const types = (await timelineTypes(page)).filter((t) => t !== "PROVIDER_REQUEST");
    expect(types).toEqual(happyPathTypes);
    await expect(page.getByRole("region", { name: "Logs" })).toBeVisible();
    await expect(page.getByRole("button", { name: "Cancel job" })).toHaveCount(0);
    await expect(page.getByTestId("job-credits")).toHaveText("1 credit charged");
    await expect(page.getByRole("link", { name: "Run again" })).toHaveAttribute(
      "href",
      `/services/text-sentiment?from=${job.jobId}`,
    );
  });

  await test.step("the jobs list filtered by service and status links to it", async () => {
    const today = new Date().toISOString().slice(0, 10);
    await page.goto(`/jobs?status=completed&serviceId=text-sentiment&dateFrom=${today}&dateTo=${today}`);
    const link = page.getByRole("link", { name: `Job ${job.jobId}` });
    await expect(link).toBeVisible();
    await page.getByLabel("Status").selectOption("failed");
    await expect(page).toHaveURL(/status=failed/);
    await expect(page.getByText("No jobs match these filters")).toBeVisible();
    await page.goBack();
    await expect(page).toHaveURL(/status=completed/);
    await link.click();
    await expect(page).toHaveURL(new RegExp(`/jobs/${job.jobId}$`));
    await expect(page.getByTestId("job-status")).toHaveText("completed");
  });
});

test("an image-ocr job whose PNG data is corrupt fails at run time, and the page explains it and shows the refund", async ({
  page,
  baseURL,
}) => {
  const dev = await signInNewDeveloper(page, baseURL as string, "Katherine Johnson");
  const job = await runJob(page.request, dev.apiKey, "image-ocr", { image: pngWithCorruptImageData() });
  await page.goto(`/jobs/${job.jobId}`);

  await expect(page.getByTestId("job-status")).toHaveText("failed", { timeout: 30_000 });
  const failure = page.getByRole("region", { name: "Failure" });
  await expect(failure).toBeVisible();
  await expect(failure.getByText("runtime", { exact: true })).toBeVisible();
  await expect(failure.getByText("What to do next:")).toBeVisible();
  await expect(failure.getByTestId("job-refund")).toContainText(`refunded ${job.creditCost} credits`);
  await expect(page.getByTestId("job-credits")).toHaveText(
    `${job.creditCost} credits charged, refunded ${job.creditCost} credits`,
  );
  await expect(page.getByRole("region", { name: "Result" })).toHaveCount(0);
  // The final status can reach the page before its last events (the stream closes at the final status and the
  // page reads the events after it once more): the timeline is read once JOB_FAILED, the last, is in it.
  await expect(page.getByRole("list", { name: "Timeline" }).getByText("JOB_FAILED")).toBeVisible();
  const types = await timelineTypes(page);
  expect(types[0]).toBe("JOB_CREATED");
  expect(types.at(-1)).toBe("JOB_FAILED");
  expect(types).toContain("EXECUTION_FAILED");
});

test("another developer opening a job's URL gets the not-found page", async ({ page, browser, baseURL }) => {
  const owner = await signInNewDeveloper(page, baseURL as string, "Owner");
  const job = await runJob(page.request, owner.apiKey, "token-count", { text: "mine" });

  const otherContext = await browser.newContext({ baseURL });
  const otherPage = await otherContext.newPage();
  await signInNewDeveloper(otherPage, baseURL as string, "Someone else");
  const response = await otherPage.goto(`/jobs/${job.jobId}`);
  expect(response?.status()).toBe(404);
  await expect(otherPage.getByRole("heading", { name: "Job not found" })).toBeVisible();
  await expect(otherPage.getByText(job.jobId)).toHaveCount(0);
  await expect(otherPage.getByRole("list", { name: "Timeline" })).toHaveCount(0);
  await otherContext.close();

  await page.goto(`/jobs/${job.jobId}`);
  await expect(page.getByTestId("job-status")).toHaveText("completed", { timeout: 30_000 });
});

test("Cancel job stops a job that is still waiting for a node, refunds it, and it reads as cancelled everywhere", async ({
  page,
  baseURL,
}) => {
  // Submitting the large images takes a while on a busy machine.
  test.setTimeout(180_000);
  const dev = await signInNewDeveloper(page, baseURL as string, "Margaret Hamilton");
  // Keep the embedded node's slots busy with OCR of a large page of text; a job submitted after them waits.
  const image = await busyPageOfText();
  const blockers: string[] = [];
  // The journeys share one server: the blockers are cancelled at the end so later journeys find a free node.
  for (let i = 0; i < e2eNodeSlots; i++)
    blockers.push((await runJob(page.request, dev.apiKey, "image-ocr", { image })).jobId);
  try {
    const cancelled = await cancelWaitingJob(page, dev.apiKey);
    await test.step("the jobs list says cancelled, in neutral words, at no cost; its filter names cancelled", async () => {
      await page.goto("/jobs?status=failed");
      const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: `Job ${cancelled.jobId}` }) });
      await expect(row.getByText("cancelled", { exact: true })).toBeVisible();
      await expect(row.getByText("failed", { exact: true })).toHaveCount(0);
      await expect(isNeutral(row.getByText("The job was cancelled by its owner."))).resolves.toBe(true);
      // The refund came back: the list's cost is what the job cost in the end.
      await expect(row.getByTestId("job-cost")).toHaveText(/^0\b/);
      await expect(row.getByTestId("job-cost")).toHaveAttribute(
        "title",
        `${formatCredits(cancelled.creditCost)} charged, refunded`,
      );
      await expect(page.getByLabel("Status").locator("option:checked")).toHaveText(/cancelled/);
    });
    // Without its event stream the page polls, and its poll stops at the Cancel button's answer (a final state):
    // the page must still read the JOB_CANCELLED that came after the last poll.
    await page.route("**/api/developers/jobs/*/events?*", (route) => route.fulfill({ status: 503 }));
    await cancelWaitingJob(page, dev.apiKey, { polling: true });
  } finally {
    for (const jobId of blockers)
      await page.request.post(`/api/developers/jobs/${jobId}/cancel`, { headers: { "x-api-key": dev.apiKey } });
  }
});

async function cancelWaitingJob(page: Page, apiKey: string, { polling = false } = {}) {
  const waiting = await runJob(page.request, apiKey, "token-count", { text: "cancel me" });

  await page.goto(`/jobs/${waiting.jobId}`);
  await expect(page.getByTestId("job-status")).not.toHaveText(/completed|failed/);
  if (polling) await expect(page.getByText("Live (polling)")).toBeVisible();
  await page.getByRole("button", { name: "Cancel job" }).click();
  await expect(page.getByTestId("job-status")).toHaveText("cancelled");
  await expect(page.getByRole("button", { name: "Cancel job" })).toHaveCount(0);
  // The result area says cancelled, in neutral colours: nothing failed.
  const failure = page.getByRole("region", { name: "Failure" });
  await expect(failure.getByRole("heading", { name: "Cancelled" })).toBeVisible();
  await expect(isNeutral(failure.getByRole("heading", { name: "Cancelled" }))).resolves.toBe(true);
  await expect(failure.getByText(/^Cancelled while (queued|routing)\.$/)).toBeVisible();
  await expect(failure.getByText(/failed/i)).toHaveCount(0);
  await expect(failure.getByTestId("job-refund")).toContainText(`refunded ${waiting.creditCost} credit`);
  await expect(page.getByRole("list", { name: "Timeline" }).getByText("JOB_CANCELLED")).toBeVisible();
  return waiting;
}

/** Whether the text is drawn in the page's ordinary or muted colour, not the destructive red. */
async function isNeutral(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => {
    const probe = (className: string) => {
      const span = document.createElement("span");
      span.className = className;
      document.body.append(span);
      const color = getComputedStyle(span).color;
      span.remove();
      return color;
    };
    const color = getComputedStyle(el).color;
    return (
      color !== probe("text-destructive") && [probe("text-foreground"), probe("text-muted-foreground")].includes(color)
    );
  });
}
