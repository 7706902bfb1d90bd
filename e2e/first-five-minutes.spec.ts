// A newcomer's first minutes: a brand-new wallet runs a service from its page with nothing else first (the
// profile is made by that Run, the form holds the service's example), with a clean console; every dashboard
// page fits a 390 px phone once there is data on it; an address that leads nowhere gets the dashboard's own
// not-found page with HTTP 404.
import { expect, test, type Page } from "@playwright/test";
import { startWebhookReceiver, type WebhookReceiver } from "../tests/support/webhook-receiver";
import { busyPageOfText, openFromNav, runJob, signInNewDeveloper } from "./dashboard-session";
import { installTestWallet, testWalletName } from "./test-wallet";

const phone = { width: 390, height: 844 };
const desktop = { width: 1440, height: 900 };
const jobUrl = /\/jobs\/[0-9a-f-]{36}$/;

/** Console errors, failed requests the browser reports and uncaught page errors, as they happen. */
function watchConsole(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" || /hydrat/i.test(message.text())) problems.push(`${page.url()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`${page.url()}: ${error.message}`));
  return problems;
}

let receiver: WebhookReceiver;
test.beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
test.afterAll(async () => {
  await receiver?.close();
});

test("a brand-new wallet runs a service from its page with no other step, and the console stays clean", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const problems = watchConsole(page);
  await installTestWallet(page);
  await page.goto("/sign-in");
  await page.getByRole("button", { name: testWalletName }).click();
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();

  await openFromNav(page, "Services");
  await page.getByRole("link", { name: "Text sentiment", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Text sentiment" })).toBeVisible();

  await test.step("the form holds the service's example, and so do the snippets", async () => {
    const text = page.getByLabel("text", { exact: true });
    await expect(text).not.toHaveValue("");
    const example = await text.inputValue();
    await expect(page.getByLabel("curl example")).toContainText(example.slice(0, 30));
    await text.fill("Something else");
    await page.getByRole("button", { name: "Reset to example" }).click();
    await expect(text).toHaveValue(example);
  });

  await test.step("Run creates the profile under the prefilled name and opens the job", async () => {
    await expect(page.getByLabel("Your developer name")).toHaveValue(/^Developer 0x/);
    await expect(page.getByRole("button", { name: "Run", exact: true })).toBeEnabled();
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await expect(page).toHaveURL(jobUrl, { timeout: 20_000 });
    await expect(page.getByTestId("job-status")).toHaveText("completed", { timeout: 30_000 });
    await expect(page.getByRole("region", { name: "Result" })).toBeVisible();
    const me = await page.request.get("/api/developers/me");
    expect(me.status()).toBe(200);
    expect(((await me.json()) as { name: string }).name).toMatch(/^Developer 0x/);
  });

  await test.step("the overview now shows the job and ticks the steps", async () => {
    await openFromNav(page, "Overview");
    await expect(
      page.getByRole("region", { name: "Recent jobs" }).getByRole("link", { name: /Text sentiment/ }),
    ).toBeVisible();
    await expect(page.getByRole("listitem").filter({ hasText: "Run a service" })).toContainText("Done");
  });

  expect(problems).toEqual([]);
});

test("a developer without a profile visits every page without an error in the console", async ({ page }) => {
  const problems = watchConsole(page);
  await installTestWallet(page);
  await page.goto("/sign-in");
  await page.getByRole("button", { name: testWalletName }).click();
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  for (const name of ["Profile", "API keys", "Webhooks", "Jobs", "Usage", "Credits", "Services", "Overview"])
    await openFromNav(page, name);
  await openFromNav(page, "API keys");
  await expect(page.getByLabel("Name")).toHaveValue(/^Developer 0x/);
  await page.getByRole("button", { name: "Create profile" }).click();
  await expect(page.getByRole("button", { name: "Create key" })).toBeVisible();
  expect(problems).toEqual([]);
});

test("every dashboard page fits a 390 px phone, with keys, jobs and webhook deliveries on it", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const dev = await signInNewDeveloper(page, baseURL as string, "Phone Tester");
  const origin = { origin: baseURL as string };
  await page.request.post("/api/developers/keys", {
    headers: origin,
    data: { name: "a key with a rather long name for a phone", scopes: ["services:execute", "jobs:read"] },
  });
  const job = await runJob(page.request, dev.apiKey, "text-summarize", {
    text: "A first sentence that is long enough to wrap on a phone. A second one follows it. And a third one closes the text.",
  });
  await runJob(page.request, dev.apiKey, "text-sentiment", { text: "Fits on a phone." });
  const endpoint = await page.request.post("/api/developers/webhooks", {
    headers: origin,
    data: {
      url: receiver.url("/hooks/a-rather-long-path/for-a-phone-screen"),
      events: ["job.completed", "job.failed"],
    },
  });
  expect(endpoint.status(), await endpoint.text()).toBe(201);
  const { endpointId } = (await endpoint.json()) as { endpointId: string };
  expect((await page.request.post(`/api/developers/webhooks/${endpointId}/test`, { headers: origin })).status()).toBe(
    202,
  );
  await expect
    .poll(
      async () =>
        (
          (await (await page.request.get(`/api/developers/webhooks/${endpointId}/deliveries`)).json()) as {
            data: unknown[];
          }
        ).data.length,
    )
    .toBeGreaterThan(0);

  const paths = [
    "/overview",
    "/services",
    "/services/image-ocr",
    "/jobs",
    `/jobs/${job.jobId}`,
    "/usage",
    "/webhooks",
    "/keys",
    "/credits",
    "/profile",
    "/no-such-page",
  ];
  for (const viewport of [phone, desktop]) {
    await page.setViewportSize(viewport);
    for (const path of paths) {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
      await page.evaluate(() => document.fonts.ready);
      const name = `${path.replace(/\//g, "_").replace(/^_/, "")}-${viewport.width}.png`;
      await page.screenshot({ path: test.info().outputPath(name), fullPage: true });
      if (viewport === phone) {
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        expect.soft(width, `${path} at 390 px`).toBeLessThanOrEqual(phone.width);
      }
    }
  }

  await test.step("on a phone every row's actions are on the screen", async () => {
    await page.setViewportSize(phone);
    await page.goto("/webhooks");
    for (const action of ["Send test", "Disable", "Delete"])
      await expect(page.getByRole("button", { name: action }).first()).toBeInViewport();
    await page.goto("/keys");
    await expect(page.getByRole("button", { name: "Revoke" }).first()).toBeInViewport();
  });
});

test("a developer watches an OCR job's log lines and progress arrive while it runs, with Cancel (not Run again) to press", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(150_000);
  const dev = await signInNewDeveloper(page, baseURL as string, "Live Watcher");
  // A large page of text: recognition keeps the job running for seconds.
  const job = await runJob(page.request, dev.apiKey, "image-ocr", { image: await busyPageOfText() });
  await page.goto(`/jobs/${job.jobId}`);
  const status = page.getByTestId("job-status");
  await expect(status).toHaveText("running", { timeout: 90_000 });

  await expect(page.getByRole("button", { name: "Cancel job" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Run again" })).toHaveCount(0);
  // The provider's own lines as they come, while the job still runs (not only once it has ended). Its first
  // progress line is enough: the recognition's pace is the machine's (CI's busy one took 20 s to reach 25 %).
  await expect(page.getByRole("region", { name: "Logs" })).toContainText("Recognizing text: 25% done", {
    timeout: 60_000,
  });
  await expect(page.getByRole("progressbar", { name: "Job progress" })).not.toHaveAttribute("aria-valuenow", "0");
  expect(await status.textContent()).toBe("running");

  await expect(status).toHaveText("completed", { timeout: 90_000 });
  await expect(page.getByRole("link", { name: "Run again" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Cancel job" })).toHaveCount(0);
});

test("a signed-out visitor learns what this is on the home page, and one without a wallet what to install", async ({
  page,
}) => {
  const problems = watchConsole(page);
  for (const viewport of [phone, desktop]) {
    await page.setViewportSize(viewport);
    await page.goto("/");
    await expect(page.getByRole("heading", { level: 1, name: "Run AI workloads with one API call" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Text sentiment" })).toBeVisible();
    await expect(page.getByText("$EXECUTION_NETWORK_API_KEY")).toBeVisible();
    await page.screenshot({ path: test.info().outputPath(`home-${viewport.width}.png`), fullPage: true });
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth),
      `/ at ${viewport.width} px`,
    ).toBeLessThanOrEqual(viewport.width);

    // No test wallet here: this browser has none.
    await page.getByRole("link", { name: "Sign in and try it" }).click();
    await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
    await expect(page.getByText("No wallet in this browser")).toBeVisible();
    await expect(page.getByRole("link", { name: "MetaMask" })).toHaveAttribute("href", /^https:\/\/metamask\.io\//);
    await page.screenshot({ path: test.info().outputPath(`sign-in-${viewport.width}.png`), fullPage: true });
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth),
      `/sign-in at ${viewport.width} px`,
    ).toBeLessThanOrEqual(viewport.width);
  }
  expect(problems).toEqual([]);
});

test("an address that leads nowhere answers 404 with the dashboard's not-found page", async ({ page, baseURL }) => {
  await signInNewDeveloper(page, baseURL as string, "Lost Visitor");
  for (const [path, heading] of [
    ["/no-such-page", "Page not found"],
    ["/services/nope", "Service not found"],
  ] as const) {
    const response = await page.goto(path);
    expect(response?.status(), path).toBe(404);
    await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
    // Inside the dashboard's layout: its navigation is there to go on from.
    await expect(page.getByRole("navigation", { name: "Dashboard", exact: true }).first()).toBeVisible();
  }
});
