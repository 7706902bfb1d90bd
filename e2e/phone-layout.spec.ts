// A developer on a phone (390 × 844): the dashboard's navigation is one Menu button, not rows of links over
// the page; a service's Run stays within reach while they fill its form; a top-up's transaction fits its card
// and dialog. The same pages at 1440 × 900 keep the sidebar and an ordinary Run row.
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { openFromNav, signInNewDeveloper } from "./dashboard-session";
import { e2eChainId, e2eChainRpcUrl, fundWallet } from "./local-chain";
import { installTestWallet, testWalletName } from "./test-wallet";

const phone = { width: 390, height: 844 };
const desktop = { width: 1440, height: 900 };

async function seriousViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) }));
}

/** Whether `inner` lies wholly inside `outer`, left to right. */
async function fitsWithin(inner: Locator, outer: Locator) {
  const [a, b] = [await inner.boundingBox(), await outer.boundingBox()];
  expect(a && b).toBeTruthy();
  return a!.x >= b!.x - 0.5 && a!.x + a!.width <= b!.x + b!.width + 0.5;
}

const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

test("on a phone the navigation is a menu that traps focus, closes on Escape and on a link, and Run stays in reach", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(120_000);
  await page.setViewportSize(phone);
  await signInNewDeveloper(page, baseURL as string, "Phone User");
  const menu = page.getByRole("button", { name: "Menu" });
  const menuBehindSheet = page.getByRole("button", { name: "Menu", includeHidden: true });
  const sheet = page.getByRole("dialog", { name: "Menu" });

  await test.step("the header is one row: logo, theme and Menu; no links over the page", async () => {
    const header = await page.getByRole("banner").boundingBox();
    expect(header!.height).toBeLessThanOrEqual(64);
    await expect(page.getByRole("navigation", { name: "Dashboard", exact: true })).toHaveCount(0);
    await expect(menu).toHaveAttribute("aria-expanded", "false");
  });

  await test.step("Menu opens the navigation in a sheet; focus stays in it; Escape closes it and focus returns", async () => {
    await menu.click();
    // Open, the sheet is modal: the page behind it, Menu included, is hidden from assistive technology.
    await expect(menuBehindSheet).toHaveAttribute("aria-expanded", "true");
    await expect(sheet.getByRole("navigation", { name: "Dashboard", exact: true })).toBeVisible();
    await expect(sheet.getByRole("link", { name: "Overview" })).toHaveAttribute("aria-current", "page");
    await expect(sheet.getByRole("button", { name: "Sign out" })).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    // More tabs than the sheet has stops: focus cycles inside it.
    for (let i = 0; i < 16; i++) {
      await page.keyboard.press("Tab");
      expect(await sheet.evaluate((el) => el.contains(document.activeElement))).toBe(true);
    }
    await page.keyboard.press("Escape");
    await expect(sheet).toHaveCount(0);
    await expect(menu).toHaveAttribute("aria-expanded", "false");
    await expect(menu).toBeFocused();
  });

  await test.step("a link in the menu opens its page and closes the menu", async () => {
    await openFromNav(page, "Jobs");
    await expect(sheet).toHaveCount(0);
    await expect(page).toHaveURL(/\/jobs$/);
  });

  await test.step("a service's Run is on screen from the top of its form to the bottom", async () => {
    await page.goto("/services/text-summarize");
    const run = page.getByRole("button", { name: /^Run/ });
    await expect(run).toBeInViewport();
    // A bar, not a wall: it takes a small part of the screen.
    expect((await run.locator("..").boundingBox())!.height).toBeLessThanOrEqual(120);
    for (const field of await page.locator("form").getByRole("textbox").all()) {
      await field.scrollIntoViewIfNeeded();
      await expect(run).toBeInViewport();
    }
    await page.getByLabel("Runs on").scrollIntoViewIfNeeded();
    await expect(run).toBeInViewport();
    expect(await pageWidth(page)).toBeLessThanOrEqual(phone.width);
    expect(await seriousViolations(page)).toEqual([]);
  });
});

test("at 1440 px the sidebar stays, there is no Menu button, and Run sits in the form's last row", async ({
  page,
  baseURL,
}) => {
  await page.setViewportSize(desktop);
  await signInNewDeveloper(page, baseURL as string, "Desk User");
  await expect(page.getByRole("navigation", { name: "Dashboard", exact: true })).toBeVisible();
  await expect(page.getByRole("button", { name: "Menu" })).toBeHidden();
  await page.goto("/services/text-summarize");
  const run = page.getByRole("button", { name: /^Run/ });
  await expect(run).toBeVisible();
  expect(await run.evaluate((el) => getComputedStyle(el.parentElement as Element).position)).toBe("static");
});

test("a top-up's transaction fits its payment dialog and the top-ups list on a phone, in full on hover and copyable", async ({
  page,
  context,
}) => {
  test.setTimeout(120_000);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.setViewportSize(phone);
  const privateKey = generatePrivateKey();
  await fundWallet(privateKeyToAccount(privateKey).address, "10");
  const wallet = await installTestWallet(page, privateKey, { chain: { rpcUrl: e2eChainRpcUrl, chainId: e2eChainId } });
  await page.goto("/sign-in");
  await page.getByRole("button", { name: testWalletName }).click();
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  await openFromNav(page, "Credits");

  let hash = "";
  await test.step("pay: the dialog's transaction fits the dialog", async () => {
    await page.getByRole("button", { name: "Add credits" }).click();
    const dialog = page.getByRole("dialog", { name: "Add credits" });
    await dialog.getByRole("button", { name: /^Switch to / }).click();
    // The switch reaches the wallet after the click has returned: done once the dialog no longer names the
    // wrong network (and the wallet is on the chain), not at once.
    await expect(dialog.getByTestId("wallet-network")).toHaveCount(0);
    await expect.poll(() => wallet.chainId()).toBe(e2eChainId);
    await dialog.getByRole("button", { name: "100", exact: true }).click();
    await dialog.getByRole("button", { name: "Pay" }).click();
    await expect(dialog.getByRole("listitem").filter({ hasText: "Recorded by the server" })).toHaveAttribute(
      "data-state",
      "done",
    );
    const transaction = dialog.getByTestId("tx-hash");
    hash = (await transaction.getAttribute("title")) ?? "";
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await fitsWithin(transaction, dialog)).toBe(true);
    expect(await dialog.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    await transaction.getByRole("button", { name: "Copy" }).click();
    // The copy is written after the click has returned.
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(hash);
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press("Escape");
  });

  await test.step("the top-ups list shows it within its card, the whole hash on hover", async () => {
    await page.reload();
    const topUps = page.getByRole("table", { name: "Top-ups" });
    const transaction = topUps.getByTestId("tx-hash").first();
    await expect(transaction).toHaveAttribute("title", hash);
    expect(await fitsWithin(transaction, page.locator('[data-slot="card"]').filter({ has: topUps }).last())).toBe(true);
    expect(await pageWidth(page)).toBeLessThanOrEqual(phone.width);
    expect(await seriousViolations(page)).toEqual([]);
  });
});
