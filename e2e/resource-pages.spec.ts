// The resource pages (API keys, nodes, webhooks) as one kit (issue 41, items 8–10): each list keeps its row
// actions on the screen from a phone to a wide monitor, each shown-once secret asks before it is closed
// uncopied, each destructive action says its failure inside its dialog beside the button; the node token
// dialog's start command copies exactly and never breaks inside a word; and the dashboard speaks one voice
// (credits counted right, cut text readable in full, Get started ticked from real data).
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { scopes } from "../lib/contract/vocabulary";
import { openFromNav, runJob, signInNewDeveloper } from "./dashboard-session";
import { installTestWallet, testWalletName } from "./test-wallet";

const desktop = { width: 1440, height: 900 };
const phone = { width: 390, height: 844 };

async function post(page: Page, path: string, data: unknown) {
  const response = await page.request.post(path, { headers: { origin: new URL(page.url()).origin }, data });
  expect(response.status(), await response.text()).toBe(201);
  return (await response.json()) as Record<string, unknown>;
}

async function expectNoSeriousAxeViolations(page: Page, where: string, include?: string) {
  const builder = new AxeBuilder({ page });
  const results = await (include ? builder.include(include) : builder).analyze();
  const serious = results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) }));
  expect.soft(serious, where).toEqual([]);
}

/** The widest rows each page can draw: long names, every scope, every service, a long URL. */
async function fillResourcePages(page: Page) {
  await post(page, "/api/developers/keys", {
    name: "Nightly batch pipeline for the analytics warehouse",
    scopes: [...scopes],
  });
  await post(page, "/api/developers/nodes", {
    name: "gpu-box-in-the-basement-with-a-very-long-descriptive-name",
    region: "eu-west-with-a-long-region-name",
    serviceIds: ["token-count", "text-sentiment", "image-ocr"],
  });
  await post(page, "/api/developers/webhooks", {
    url: "http://127.0.0.1:9/hooks/a/rather/long/path/that/goes/on/and/on/for/the/analytics/warehouse",
    events: ["job.status_changed", "job.completed", "job.failed", "credits.low"],
  });
}

const pages = [
  { nav: "API keys", row: /Nightly batch/, actions: ["Limit", "Rotate", "Revoke"] },
  { nav: "Nodes", row: /gpu-box-in-the-basement/, actions: ["Rotate token", "Revoke"] },
  {
    nav: "Webhooks",
    row: /analytics\/warehouse/,
    actions: ["Deliveries", "Send test", "Disable", "Rotate secret", "Delete"],
  },
] as const;

test("keys, nodes and webhook endpoints keep every row action on the screen from 390 to 1920 px, and pass axe", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(180_000);
  await signInNewDeveloper(page, baseURL as string, "Kit Inspector");
  await fillResourcePages(page);

  for (const resource of pages) {
    await openFromNav(page, resource.nav);
    const row = page.getByRole("row", { name: resource.row });
    await expect(row).toBeVisible();
    for (const width of [390, 1440, 1920]) {
      await page.setViewportSize({ width, height: 900 });
      // Scrolled to vertically only: scrolling a button itself into view would hide a cut-off row.
      await row.evaluate((el) => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 80));
      for (const action of resource.actions)
        await expect(
          row.getByRole("button", { name: action, exact: true }),
          `${resource.nav}: ${action} at ${width} px`,
        ).toBeInViewport({ ratio: 1 });
      const pageWidth = await page.evaluate(() => document.scrollingElement?.scrollWidth ?? Infinity);
      expect(pageWidth, `${resource.nav}: page width at ${width} px`).toBeLessThanOrEqual(width);
      if (width !== 1920) await expectNoSeriousAxeViolations(page, `${resource.nav} at ${width} px`);
    }
    await page.setViewportSize(desktop);
  }
});

/** Presses Escape, then the close button, on an uncopied secret: each asks, and "Keep it open" keeps it. */
async function expectCloseAsks(page: Page, dialog: Locator, question: string, field: Locator) {
  const secret = await field.inputValue();
  for (const close of [
    () => page.keyboard.press("Escape"),
    () => dialog.getByRole("button", { name: "Close", exact: true }).click(),
  ]) {
    await close();
    const ask = page.getByRole("alertdialog", { name: question });
    await expect(ask).toBeVisible();
    await ask.getByRole("button", { name: "Keep it open" }).click();
    await expect(ask).toHaveCount(0);
    await expect(field).toHaveValue(secret);
  }
  // "Close anyway" closes it, secret and all.
  await page.keyboard.press("Escape");
  await page.getByRole("alertdialog", { name: question }).getByRole("button", { name: "Close anyway" }).click();
  await expect(page.getByRole("dialog")).toHaveCount(0);
  expect(await page.content()).not.toContain(secret);
}

test("every shown-once secret (key, node token, signing secret) asks before Escape or Close drops it uncopied", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(120_000);
  await page.setViewportSize(desktop);
  await signInNewDeveloper(page, baseURL as string, "Secret Keeper");

  await test.step("an API key", async () => {
    await openFromNav(page, "API keys");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByRole("dialog").getByLabel("Name").fill("guarded");
    await page.getByRole("dialog").getByRole("button", { name: "Create key" }).click();
    const dialog = page.getByRole("dialog", { name: "API key created" });
    await expectNoSeriousAxeViolations(page, "key secret dialog", '[role="dialog"]');
    await expectCloseAsks(
      page,
      dialog,
      "Close without copying the key?",
      dialog.getByRole("textbox", { name: "Your new API key" }),
    );
  });

  await test.step("a node token", async () => {
    await openFromNav(page, "Nodes");
    await page.getByRole("button", { name: "Add node" }).click();
    await page.getByRole("dialog").getByLabel("Name").fill("guarded-node");
    await page.getByRole("dialog").getByRole("button", { name: "Add node" }).click();
    const dialog = page.getByRole("dialog", { name: "Node added" });
    await expectNoSeriousAxeViolations(page, "node token dialog", '[role="dialog"]');
    await expectCloseAsks(
      page,
      dialog,
      "Close without copying the node token?",
      dialog.getByRole("textbox", { name: "Node token" }),
    );
  });

  await test.step("a webhook signing secret, added and rotated", async () => {
    await openFromNav(page, "Webhooks");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await page.getByRole("dialog").getByLabel("Endpoint URL").fill("http://127.0.0.1:9/hooks/guarded");
    await page.getByRole("dialog").getByRole("button", { name: "Add endpoint" }).click();
    const dialog = page.getByRole("dialog", { name: "Signing secret" });
    const field = dialog.getByRole("textbox", { name: "Webhook signing secret" });
    await expectNoSeriousAxeViolations(page, "signing secret dialog", '[role="dialog"]');
    await expectCloseAsks(page, dialog, "Close without copying the signing secret?", field);

    await page
      .getByRole("row", { name: /hooks\/guarded/ })
      .getByRole("button", { name: "Rotate secret" })
      .click();
    await expectCloseAsks(page, dialog, "Close without copying the signing secret?", field);
  });

  await test.step("once copied, Escape closes at once", async () => {
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await page
      .getByRole("row", { name: /hooks\/guarded/ })
      .getByRole("button", { name: "Rotate secret" })
      .click();
    const dialog = page.getByRole("dialog", { name: "Signing secret" });
    await dialog.getByRole("button", { name: "Copy signing secret" }).click();
    await expect(dialog.getByText("Copied")).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(page.getByRole("alertdialog")).toHaveCount(0);
    await expect(page.getByRole("dialog")).toHaveCount(0);
  });
});

test("a revoke that fails says so inside its dialog, beside the button, on a phone", async ({ page, baseURL }) => {
  await page.setViewportSize(phone);
  await signInNewDeveloper(page, baseURL as string, "Phone Revoker");
  await openFromNav(page, "API keys");
  await page.route(
    "**/api/developers/keys/*",
    (route) =>
      route.request().method() === "DELETE"
        ? route.fulfill({
            status: 503,
            json: { error: { code: "SERVICE_UNAVAILABLE", message: "Try again shortly.", requestId: "req_e2e" } },
          })
        : route.fallback(),
    { times: 1 },
  );
  await page
    .getByRole("row", { name: /e2e jobs/ })
    .getByRole("button", { name: "Revoke" })
    .click();
  const confirm = page.getByRole("alertdialog", { name: /Revoke/ });
  await confirm.getByRole("button", { name: "Revoke key" }).click();
  const failure = confirm.getByRole("alert").filter({ hasText: "Could not revoke the key" });
  await expect(failure).toContainText("SERVICE_UNAVAILABLE");
  await expect(failure).toBeInViewport({ ratio: 1 });
  await expect(confirm.getByRole("button", { name: "Revoke key" })).toBeInViewport({ ratio: 1 });
  await expectNoSeriousAxeViolations(page, "revoke failure", '[role="alertdialog"]');
  // Trying again works, and the row says so.
  await confirm.getByRole("button", { name: "Revoke key" }).click();
  await expect(page.getByRole("alertdialog")).toHaveCount(0);
  await expect(page.getByRole("row", { name: /e2e jobs/ }).getByText("Revoked", { exact: true })).toBeVisible();
});

for (const viewport of [
  { name: "desktop", ...desktop },
  { name: "phone", ...phone },
]) {
  test(`the node token dialog's start command copies exactly and never breaks inside a word (${viewport.name})`, async ({
    page,
    baseURL,
  }) => {
    await page.setViewportSize(viewport);
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await signInNewDeveloper(page, baseURL as string, `Node Starter ${viewport.name}`);
    await openFromNav(page, "Nodes");
    // The page says how to start a node before there is one.
    await expect(page.getByLabel("Node start command", { exact: true })).toHaveText(
      `npx @execution-network/node --url ${baseURL} --token node_…`,
    );

    await page.getByRole("button", { name: "Add node" }).click();
    await page.getByRole("dialog").getByLabel("Name").fill("starter");
    await page.getByRole("dialog").getByRole("button", { name: "Add node" }).click();
    const dialog = page.getByRole("dialog", { name: "Node added" });
    const token = await dialog.getByRole("textbox", { name: "Node token" }).inputValue();
    const listed = (await (await page.request.get("/api/developers/nodes")).json()) as {
      data: { serviceIds: string[]; concurrency: number }[];
    };
    const services = `--services ${listed.data[0].serviceIds.join(",")}`;
    const concurrency = `--concurrency ${listed.data[0].concurrency}`;

    for (const [label, copy, program] of [
      ["Start command", "Copy start command", "npx @execution-network/node"],
      ["Start command in a checkout", "Copy start command for a checkout", "npm run node --"],
    ] as const) {
      const block = dialog.getByLabel(label, { exact: true });
      const expected = `${program} --url ${baseURL} --token ${token} ${services} ${concurrency}`;
      await expect(block).toHaveText(expected);
      // Each part (the program, a flag with its value) sits on one line: the block wraps only between them.
      const parts = await block
        .locator("span")
        .evaluateAll((spans) =>
          spans.map((s) => ({ text: s.textContent, lines: new Set([...s.getClientRects()].map((r) => r.top)).size })),
        );
      expect(parts.map((p) => p.text)).toEqual([
        program,
        `--url ${baseURL}`,
        `--token ${token}`,
        services,
        concurrency,
      ]);
      for (const part of parts) expect(part.lines, `${part.text} at ${viewport.width} px`).toBe(1);
      await dialog.getByRole("button", { name: copy, exact: true }).click();
      // The copy is written after the click has returned (and only then counts as copied, for Escape below).
      await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(expected);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    await expectNoSeriousAxeViolations(page, `node token dialog (${viewport.name})`, '[role="dialog"]');
    // Copying a command copied the token too: Escape closes without asking.
    await page.keyboard.press("Escape");
    await expect(page.getByRole("alertdialog")).toHaveCount(0);
    await expect(page.getByRole("dialog")).toHaveCount(0);
  });
}

/** Text an ellipsis cuts that shows nowhere in full: neither in its own title nor an ancestor's. */
async function cutTextWithoutTitle(page: Page) {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>("body *")]
      .filter((el) => getComputedStyle(el).textOverflow === "ellipsis" && el.scrollWidth > el.clientWidth)
      .filter(
        (el) =>
          !el
            .closest("[title]")
            ?.getAttribute("title")
            ?.includes((el.textContent ?? "").trim()),
      )
      .map((el) => el.textContent),
  );
}

test("one voice: credits are counted right everywhere, cut text shows in full on hover, Get started ticks each step", async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.setViewportSize(desktop);
  await installTestWallet(page);
  await page.goto("/sign-in");
  await page.getByRole("button", { name: testWalletName }).click();
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  const steps = page.getByRole("list").filter({ hasText: "Create your profile" }).getByRole("listitem");
  const step = (title: string) => steps.filter({ hasText: title });

  await test.step("Get started: nothing done yet", async () => {
    await expect(steps).toHaveCount(4);
    for (const title of ["Create your profile", "Run a service", "Create an API key", "Submit a job from your code"])
      await expect(step(title)).not.toContainText("Done");
  });

  let apiKey = "";
  await test.step("each step ticks once the developer has really done it", async () => {
    await post(page, "/api/developers", { name: "Voice Tester" });
    await page.reload();
    await expect(step("Create your profile")).toContainText("Done");
    await expect(step("Run a service")).not.toContainText("Done");

    await openFromNav(page, "Services");
    await page.getByRole("link", { name: "Token count", exact: true }).click();
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await expect(page).toHaveURL(/\/jobs\//, { timeout: 20_000 });
    await openFromNav(page, "Overview");
    await expect(step("Run a service")).toContainText("Done");
    await expect(step("Create an API key")).not.toContainText("Done");

    apiKey = String((await post(page, "/api/developers/keys", { name: "voice", scopes: ["services:execute"] })).key);
    await page.reload();
    await expect(step("Create an API key")).toContainText("Done");
    await expect(step("Submit a job from your code")).not.toContainText("Done");

    // The last step done, the card has nothing left to say and goes.
    // (A key's last use is recorded within seconds, not on every request: call again until it shows.)
    await expect(async () => {
      await runJob(page.request, apiKey, "token-count", { text: "from my code" });
      await page.reload();
      await expect(page.getByText("Get started")).toHaveCount(0, { timeout: 1_000 });
    }).toPass({ timeout: 30_000, intervals: [1_000, 2_000, 5_000] });
  });

  await test.step('a key limited to 1 credit and a 1-credit job read "1 credit", never "1 credits" or "-0 credits"', async () => {
    const key = await post(page, "/api/developers/keys", {
      name: "one credit key",
      scopes: ["services:execute"],
      creditLimit: 1,
      creditLimitReset: "daily",
    });
    await runJob(page.request, String(key.key), "token-count", { text: "one" });
    await runJob(page.request, apiKey, "text-sentiment", { text: "Clear words, one voice." });
    const wrong = /(?<![\d,.])[-−]?1 (more )?credits\b|[-−]0 credits?\b/;
    for (const nav of ["Overview", "Services", "Jobs", "Usage", "API keys", "Credits", "Profile"]) {
      await openFromNav(page, nav);
      await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
      const text = await page.locator("main").innerText();
      expect(text, nav).not.toMatch(wrong);
      expect(await cutTextWithoutTitle(page), `${nav}: text cut by an ellipsis without its full text on hover`).toEqual(
        [],
      );
    }
    // The walk ends on Profile; the key's limit is read back on its own page.
    await openFromNav(page, "API keys");
    await page
      .getByRole("row", { name: /one credit key/ })
      .getByRole("button", { name: "Limit" })
      .click();
    await expect(page.getByRole("dialog")).toContainText("of 1 credit left");
  });
});
