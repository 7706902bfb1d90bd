// Every dashboard page, in the light and the dark theme, on a desktop and a 360 px phone: no serious or
// critical axe violation, no console error or hydration warning, and a screenshot of each kept under
// test-results/.
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { runJob, signInNewDeveloper } from "./dashboard-session";

const navPages = ["Overview", "Services", "Jobs", "Nodes", "Usage", "Webhooks", "API keys", "Credits", "Profile"];
const viewports = [
  { name: "desktop", width: 1280, height: 900 },
  { name: "phone", width: 360, height: 780 },
] as const;
const themes = ["light", "dark"] as const;

async function seriousViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")) }));
}

test("every dashboard page passes axe in both themes, on desktop and at 360 px, without console errors", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(240_000);
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" || /hydrat/i.test(message.text())) {
      problems.push(`${page.url()}: ${message.text()} (${message.location().url})`);
    }
  });
  page.on("pageerror", (error) => problems.push(`${page.url()}: ${error.message}`));

  const dev = await signInNewDeveloper(page, baseURL as string, "Axe Tester");
  const job = await runJob(page.request, dev.apiKey, "text-sentiment", { text: "Clear and accessible. I like it." });

  // The nav's pages (those this build has), plus a job's page.
  const nav = page.getByRole("navigation", { name: "Dashboard", exact: true });
  const paths: string[] = [];
  for (const name of navPages) {
    const href = await nav.getByRole("link", { name, exact: true }).getAttribute("href");
    expect(href, `nav link ${name}`).toBeTruthy();
    paths.push(href as string);
  }
  paths.push(`/jobs/${job.jobId}`);

  for (const theme of themes) {
    await page.setViewportSize(viewports[0]);
    await page.goto("/overview");
    const choice = page
      .getByRole("radiogroup", { name: "Theme" })
      .getByRole("radio", { name: theme === "light" ? "Light" : "Dark" });
    await choice.click();
    // Chosen, not only shown: a light system theme already draws "light" before the click has been handled,
    // and the pages below must open with the stored choice.
    await expect(choice).toHaveAttribute("aria-checked", "true");
    await expect(page.locator("html")).toHaveClass(new RegExp(`\\b${theme}\\b`));

    for (const viewport of viewports) {
      await page.setViewportSize(viewport);
      for (const path of paths) {
        const response = await page.goto(path);
        if (response?.status() === 404 && path === "/webhooks") {
          test.info().annotations.push({ type: "skipped", description: `${path} is not built in this branch` });
          continue;
        }
        await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
        // Loaded: nothing marked busy (skeletons carry aria-busy) and the fonts in place.
        await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
        await page.evaluate(() => document.fonts.ready);
        await expect(page.locator("html")).toHaveClass(new RegExp(`\\b${theme}\\b`));
        const name = `${path.replace(/\//g, "_").replace(/^_/, "") || "root"}-${theme}-${viewport.name}.png`;
        await page.screenshot({ path: test.info().outputPath(name), fullPage: true });
        if (viewport.name === "phone") {
          // Nothing wider than the phone: the page never scrolls sideways (wide tables scroll in their own box).
          const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
          expect.soft(pageWidth, `${path} (${theme}) width at 360 px`).toBeLessThanOrEqual(viewport.width);
        }
        const violations = await seriousViolations(page);
        expect.soft(violations, `${path} (${theme}, ${viewport.name})`).toEqual([]);
      }
    }
  }
  // Pages other branches build (/webhooks, /services/:serviceId behind "Run again") answer 404 to prefetches
  // until they are merged in; nothing else may fail.
  const notYetBuilt = /\((?:http:\/\/[^/]+)?\/(?:webhooks|services\/[\w-]+)[?)]/;
  expect(problems.filter((p) => !notYetBuilt.test(p))).toEqual([]);
});
