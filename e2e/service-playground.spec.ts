// Running a service from the dashboard: the service page's playground, Run through the dashboard's
// server-held key, and what must never reach the browser (that key's secret).
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { openFromNav } from "./dashboard-session";
import { installTestWallet, testWalletName } from "./test-wallet";

/** An API key secret as the API issues them. */
const secretPattern = /dev_[0-9A-Za-z]{43}/;
const jobUrl = /\/jobs\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

async function signIn(page: Page) {
  await page.goto("/sign-in");
  await page.getByRole("button", { name: testWalletName }).click();
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
}

/**
 * Every response the page receives, headers and body, kept to look for secrets at the end. Read in the
 * route (passed through unchanged), since a body is no longer readable once the page has navigated on.
 * Event streams never end, so they pass unrecorded.
 */
async function recordResponses(page: Page): Promise<string[]> {
  const bodies: string[] = [];
  await page.route(
    (url) => !url.pathname.endsWith("/events"),
    async (route) => {
      const request = route.request();
      let response;
      try {
        response = await route.fetch({ maxRedirects: 0 });
      } catch (first) {
        // A browser retries a GET whose reused connection the server had just closed; this proxy does the
        // same once. A request the page gave up on (an abandoned prefetch) fails again: nothing reaches the page.
        console.warn(`e2e proxy: ${request.method()} ${request.url()} failed (${String(first)})`);
        if (request.method() !== "GET") return route.abort().catch(() => undefined);
        try {
          response = await route.fetch({ maxRedirects: 0 });
        } catch {
          return route.abort().catch(() => undefined);
        }
      }
      const body = await response.text();
      bodies.push(JSON.stringify(response.headers()), body);
      await route.fulfill({ response, body });
    },
  );
  return bodies;
}

async function balance(page: Page): Promise<number> {
  const response = await page.request.get("/api/credits/balance");
  expect(response.status()).toBe(200);
  return ((await response.json()) as { balance: number }).balance;
}

async function jobCount(page: Page): Promise<number> {
  const response = await page.request.get("/api/developers/jobs?limit=1");
  return ((await response.json()) as { pagination: { total: number } }).pagination.total;
}

async function runAndOpenJob(page: Page, click: () => Promise<void>): Promise<string> {
  await click();
  await expect(page).toHaveURL(jobUrl, { timeout: 20_000 });
  return jobUrl.exec(new URL(page.url()).pathname)?.[1] ?? "";
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

test("a developer runs text-sentiment from its service page, pays its cost once, and never receives the dashboard's key", async ({
  page,
  browser,
}) => {
  // A long journey (several runs, a second developer) on a shared 2-core machine.
  test.setTimeout(180_000);
  await installTestWallet(page);
  const bodies = await recordResponses(page);

  await test.step("sign in and create the profile", async () => {
    await signIn(page);
    await openFromNav(page, "Profile");
    await page.getByLabel("Name").fill("Grace Hopper");
    await page.getByRole("button", { name: "Create profile" }).click();
    await expect(page.getByText("Profile created")).toBeVisible();
  });

  await test.step("open text-sentiment from the services catalog", async () => {
    await openFromNav(page, "Services");
    await page.getByRole("link", { name: "Text sentiment", exact: true }).click();
    await expect(page).toHaveURL(/\/services\/text-sentiment$/);
    await expect(page.getByRole("heading", { level: 1, name: "Text sentiment" })).toBeVisible();
  });

  let jobId = "";
  const before = await balance(page);
  await test.step("fill the form and Run: the job page opens, the job completes, the cost is charged", async () => {
    await page.getByLabel("text", { exact: true }).fill("I love how quickly this works. Wonderful!");
    // The examples follow the form.
    await expect(page.getByLabel("curl example")).toContainText("I love how quickly this works");
    jobId = await runAndOpenJob(page, () => page.getByRole("button", { name: "Run", exact: true }).click());
    await expect
      .poll(
        async () =>
          ((await (await page.request.get(`/api/developers/jobs/${jobId}`)).json()) as { status: string }).status,
        {
          timeout: 30_000,
        },
      )
      .toBe("completed");
    expect(await balance(page)).toBe(before - 1);
  });

  await test.step("the job page it opened shows completed, the result and the events in order, live", async () => {
    await expect(page.getByTestId("job-status")).toHaveText("completed", { timeout: 30_000 });
    await expect(page.getByRole("region", { name: "Result" })).toBeVisible();
    const types = page.getByRole("list", { name: "Timeline" }).getByRole("listitem");
    await expect(types.last()).toContainText("EXECUTION_COMPLETED");
    await expect(types.first()).toContainText("JOB_CREATED");
  });

  await test.step("the job is in the jobs list filtered by service and status", async () => {
    const listed = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/developers/jobs");
    await page.goto("/jobs?status=completed&serviceId=text-sentiment");
    expect((await listed).status()).toBe(200);
    await expect(page.locator(`a[href="/jobs/${jobId}"]`).first()).toBeVisible();
  });

  await test.step("a double-clicked Run creates one job", async () => {
    await page.goto("/services/text-sentiment");
    await page.getByLabel("text", { exact: true }).fill("Clicked twice, charged once.");
    const jobsBefore = await jobCount(page);
    const balanceBefore = await balance(page);
    await runAndOpenJob(page, () => page.getByRole("button", { name: "Run", exact: true }).dblclick());
    expect(await jobCount(page)).toBe(jobsBefore + 1);
    expect(await balance(page)).toBe(balanceBefore - 1);
  });

  await test.step("input the service refuses is shown at its field, and nothing is submitted", async () => {
    await page.goto("/services/text-summarize");
    const jobsBefore = await jobCount(page);
    await page.getByLabel("text", { exact: true }).fill("One sentence. And another one.");
    await page.getByLabel("sentences", { exact: true }).fill("11");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await expect(page.getByLabel("sentences", { exact: true })).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByText("Too big: expected number to be <=10")).toBeVisible();
    await page.getByLabel("text", { exact: true }).fill("");
    await expect(page.getByLabel("text", { exact: true })).toHaveAttribute("aria-invalid", "true");
    await expect(page).toHaveURL(/\/services\/text-summarize$/);
    expect(await jobCount(page)).toBe(jobsBefore);
  });

  await test.step("the disabled text-generate says why and cannot run", async () => {
    await page.goto("/services/text-generate");
    await expect(page.getByText("No LLM endpoint is configured")).toBeVisible();
    await page.getByLabel("prompt", { exact: true }).fill("Write a haiku");
    await expect(page.getByRole("button", { name: "Run", exact: true })).toBeDisabled();
  });

  await test.step("Run again: ?from=<jobId> seeds the form with that job's input", async () => {
    await page.goto(`/services/text-sentiment?from=${jobId}`);
    await expect(page.getByLabel("text", { exact: true })).toHaveValue("I love how quickly this works. Wonderful!");
  });

  await test.step("the keys page lists the dashboard's key: services:execute only, revocable, not rotatable", async () => {
    await openFromNav(page, "API keys");
    const row = page.getByRole("row", { name: /Dashboard/ });
    await expect(row).toHaveCount(1);
    await expect(row.getByText("services:execute")).toBeVisible();
    await expect(row.getByRole("button", { name: "Revoke" })).toBeVisible();
    await expect(row.getByRole("button", { name: "Rotate" })).toHaveCount(0);
  });

  await test.step("another developer's job id seeds nothing: the form holds the service's example", async () => {
    const baseURL = test.info().project.use.baseURL;
    const stranger = await browser.newPage({ baseURL });
    await installTestWallet(stranger);
    await signIn(stranger);
    await stranger.goto("/services/text-sentiment");
    const example = await stranger.getByLabel("text", { exact: true }).inputValue();
    expect(example).not.toBe("");
    await stranger.goto(`/services/text-sentiment?from=${jobId}`);
    await expect(stranger.getByLabel("text", { exact: true })).toHaveValue(example);
    await stranger.close();
  });

  await test.step("no response the browser received, and no built static file, holds an API key secret", async () => {
    expect(bodies.length).toBeGreaterThan(20);
    expect(bodies.filter((body) => secretPattern.test(body))).toEqual([]);
    const staticFiles = filesUnder(path.resolve(".next/static"));
    expect(staticFiles.length).toBeGreaterThan(0);
    expect(staticFiles.filter((file) => secretPattern.test(readFileSync(file, "latin1")))).toEqual([]);
  });
});
