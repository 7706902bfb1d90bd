// A developer picks "Runs on: your own nodes" with none of them live: the playground says so before Run, and
// a job that found none says "none of your nodes was live" with the way to the Nodes page. This journey has
// its own server, started from the same build with a routing timeout of seconds, so the job fails in
// seconds rather than after the shared server's two minutes.
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { startNextServer, tempDataDir, type NextServer } from "../tests/support/next-server";
import { signInNewDeveloper } from "./dashboard-session";

const routingTimeoutMs = 3_000;
let server: NextServer;
let dataDir: ReturnType<typeof tempDataDir>;

test.beforeAll(async () => {
  dataDir = tempDataDir();
  server = await startNextServer({
    env: {
      DATA_DIR: dataDir.dir,
      ROUTING_TIMEOUT_MS: String(routingTimeoutMs),
      STARTER_CREDITS: "100",
      // No node of the network is needed: a job placed on own nodes never goes to one.
      EMBEDDED_NODES: "0",
    },
  });
});
test.afterAll(async () => {
  await server?.stop();
  dataDir?.remove();
});

async function seriousViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id);
}

async function pageOnOwnServer(browser: Browser) {
  const context = await browser.newContext({ baseURL: server.baseUrl, viewport: { width: 1440, height: 900 } });
  return context.newPage();
}

test("with none of my nodes live, the playground says so before Run and the failed job points to Nodes", async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const page = await pageOnOwnServer(browser);
  await signInNewDeveloper(page, server.baseUrl, "Nodeless Owner");
  await page.goto("/services/token-count");
  const notice = page.getByRole("alert").filter({ hasText: "None of your nodes" });

  await test.step("any node: nothing to warn about", async () => {
    await expect(page.getByLabel("Runs on")).toHaveValue("any");
    await expect(notice).toHaveCount(0);
  });

  await test.step("your own nodes: told before Run that none is live, with a link to Nodes", async () => {
    await page.getByLabel("Runs on").selectOption("own");
    await expect(notice).toContainText("None of your nodes is live");
    await expect(notice.getByRole("link", { name: "Nodes" })).toHaveAttribute("href", "/nodes");
    await expect(page.getByRole("button", { name: /^Run/ })).toBeEnabled();
    expect(await seriousViolations(page)).toEqual([]);
  });

  await test.step("run anyway: the job fails for want of a live node of mine, says so, and links to Nodes", async () => {
    await page.getByRole("button", { name: /^Run/ }).click();
    // Run's answer, then the job page's render, on a busy machine: the other journeys' Run allows 20 s too.
    await expect(page).toHaveURL(/\/jobs\/[0-9a-f-]{36}$/, { timeout: 20_000 });
    await expect(page.getByTestId("job-status")).toHaveText("failed", { timeout: 30_000 });
    const failure = page.getByRole("region", { name: "Failure" });
    await expect(failure).toContainText("None of your nodes was live");
    await expect(failure).toContainText("routing");
    await expect(failure.getByTestId("job-refund")).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await failure.getByRole("link", { name: "Nodes" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Nodes" })).toBeVisible();
  });
});
