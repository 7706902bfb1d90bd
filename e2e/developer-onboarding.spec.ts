// A developer's first visit: wallet sign-in, profile, an API key through its whole life, a session that
// ends mid-visit (said once, then back to the same page after signing in again), the starter credits, and
// signing out.
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { scopes } from "../lib/contract/vocabulary";
import { openFromNav } from "./dashboard-session";
import { installTestWallet, testWalletName } from "./test-wallet";

const secretPattern = /^dev_[0-9A-Za-z]{32,}$/;

/** Calls an API-key route from outside the browser (no session cookie), as the developer's code would. */
async function balanceStatusWith(request: APIRequestContext, secret: string) {
  const response = await request.get("/api/credits/balance", { headers: { "x-api-key": secret } });
  return response.status();
}

async function signInWithWallet(page: Page) {
  // A signed-out visitor's home page says what this is and leads to sign-in.
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1, name: "Run AI workloads with one API call" })).toBeVisible();
  await page.getByRole("link", { name: "Sign in", exact: true }).first().click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await page.getByRole("button", { name: testWalletName }).click();
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  await expect(page).toHaveURL(/\/overview$/);
}

async function readRevealedSecret(page: Page) {
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByText("you won't see it again", { exact: false })).toBeVisible();
  const secretField = dialog.getByRole("textbox", { name: "Your new API key" });
  await expect(secretField).toHaveValue(secretPattern);
  return secretField.inputValue();
}

test("a developer signs in with a wallet, creates a profile and a key, rotates and revokes it, and signs out", async ({
  page,
  request,
}) => {
  const wallet = await installTestWallet(page);

  await test.step("sign in with the wallet", async () => {
    await signInWithWallet(page);
    await expect(page.getByTestId("signed-in-address")).toHaveText(
      `${wallet.address.slice(0, 6)}…${wallet.address.slice(-4)}`,
    );
  });

  await test.step("keys wait for a profile, which the page offers to create in place", async () => {
    await openFromNav(page, "API keys");
    await expect(page.getByText("Create your developer profile", { exact: true })).toBeVisible();
    await expect(page.getByLabel("Name")).toHaveValue(
      `Developer ${wallet.address.slice(0, 6)}…${wallet.address.slice(-4)}`,
    );
  });

  await test.step("create the developer profile", async () => {
    await openFromNav(page, "Profile");
    await expect(page.getByText("Create your developer profile", { exact: true })).toBeVisible();
    await page.getByLabel("Name").fill("Ada Lovelace");
    await page.getByLabel("Email (optional)").fill("ada@example.com");
    await page.getByLabel("Organization (optional)").fill("Analytical Engines");
    await page.getByRole("button", { name: "Create profile" }).click();
    await expect(page.getByText("Profile created")).toBeVisible();
    await expect(page.getByText(wallet.address)).toBeVisible();
  });

  let firstSecret = "";
  await test.step("create an API key and see its secret once", async () => {
    await openFromNav(page, "API keys");
    await expect(page.getByText("No API keys yet")).toBeVisible();
    await page.getByRole("button", { name: "Create key" }).click();
    const dialog = page.getByRole("dialog", { name: "Create an API key" });
    await dialog.getByLabel("Name").fill("CI pipeline");
    await dialog.getByRole("checkbox", { name: "credits:read" }).check();
    await dialog.getByRole("button", { name: "Create key" }).click();

    firstSecret = await readRevealedSecret(page);
    expect(await balanceStatusWith(request, firstSecret)).toBe(200);

    // Escape before copying would lose the secret for good: the page asks first, and staying keeps it.
    await page.keyboard.press("Escape");
    const ask = page.getByRole("alertdialog", { name: "Close without copying the key?" });
    await expect(ask).toBeVisible();
    await ask.getByRole("button", { name: "Keep it open" }).click();
    await expect(ask).toHaveCount(0);
    await expect(page.getByRole("textbox", { name: "Your new API key" })).toHaveValue(firstSecret);
    // Once copied, Escape closes at once.
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.getByRole("button", { name: "Copy API key" }).click();
    await expect(page.getByRole("dialog").getByText("Copied")).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(firstSecret);
    await page.keyboard.press("Escape");
    await expect(page.getByRole("alertdialog")).toHaveCount(0);
    await expect(page.getByRole("dialog")).toHaveCount(0);

    const row = page.getByRole("row", { name: /CI pipeline/ });
    await expect(row.getByText(`dev_${firstSecret.slice(4, 12)}…`)).toBeVisible();
    await expect(row.getByText("Active")).toBeVisible();
    await expect(row.getByText("credits:read")).toBeVisible();
  });

  await test.step("the secret is gone after a reload", async () => {
    await page.reload();
    await expect(page.getByRole("row", { name: /CI pipeline/ })).toBeVisible();
    await expect(page.getByText(firstSecret)).toHaveCount(0);
    expect(await page.content()).not.toContain(firstSecret);
  });

  await test.step("a key's actions stay on the screen from a phone to a wide monitor; the page never scrolls sideways", async () => {
    // A key with every scope and a long name draws the widest row the page has.
    const wide = await page.request.post("/api/developers/keys", {
      headers: { origin: new URL(page.url()).origin },
      data: { name: "Nightly batch pipeline for the analytics warehouse", scopes: [...scopes] },
    });
    expect(wide.status(), await wide.text()).toBe(201);
    await page.reload();
    for (const width of [390, 1440, 1920]) {
      await page.setViewportSize({ width, height: 900 });
      for (const name of [/CI pipeline/, /Nightly batch/]) {
        const row = page.getByRole("row", { name });
        // Scrolled to vertically only: scrolling the button itself into view would hide a cut-off row.
        await row.evaluate((el) => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 80));
        for (const action of ["Limit", "Rotate", "Revoke"])
          await expect(row.getByRole("button", { name: action }), `${action} at ${width} px`).toBeInViewport({
            ratio: 1,
          });
      }
      const pageWidth = await page.evaluate(() => document.scrollingElement?.scrollWidth ?? Infinity);
      expect(pageWidth, `page width at ${width} px`).toBeLessThanOrEqual(width);
    }
    await page.setViewportSize({ width: 1280, height: 720 });
  });

  let rotatedSecret = "";
  await test.step("rotate the key: a new secret, shown once; the old one stops working", async () => {
    await page
      .getByRole("row", { name: /CI pipeline/ })
      .getByRole("button", { name: "Rotate" })
      .click();
    const dialog = page.getByRole("dialog", { name: /Rotate/ });
    await dialog.getByRole("button", { name: "Rotate key" }).click();

    rotatedSecret = await readRevealedSecret(page);
    expect(rotatedSecret).not.toBe(firstSecret);
    await expect(page.getByText("The old secret has stopped working.")).toBeVisible();
    expect(await balanceStatusWith(request, firstSecret)).toBe(401);
    expect(await balanceStatusWith(request, rotatedSecret)).toBe(200);

    await page.getByRole("button", { name: "Done" }).click();
    await expect(
      page.getByRole("row", { name: /CI pipeline/ }).getByText(`dev_${rotatedSecret.slice(4, 12)}…`),
    ).toBeVisible();
    await expect(page.getByText(rotatedSecret)).toHaveCount(0);
  });

  await test.step("revoke the key after confirming", async () => {
    const row = page.getByRole("row", { name: /CI pipeline/ });
    await row.getByRole("button", { name: "Revoke" }).click();
    const confirm = page.getByRole("alertdialog", { name: /Revoke/ });
    await expect(confirm.getByText("This cannot be undone.", { exact: false })).toBeVisible();
    await confirm.getByRole("button", { name: "Revoke key" }).click();

    await expect(page.getByRole("alertdialog")).toHaveCount(0);
    await expect(row.getByText("Revoked", { exact: true })).toBeVisible();
    await expect(row.getByRole("button", { name: "Rotate" })).toHaveCount(0);
    expect(await balanceStatusWith(request, rotatedSecret)).toBe(401);
  });

  await test.step("a session that ends mid-visit is said once, over the open dialog, and signing in again returns here", async () => {
    await page.goto("/keys?from=session-test");
    await expect(page.getByRole("row", { name: /CI pipeline/ })).toBeVisible();
    await expect(page.getByTestId("session-state")).toContainText("Signed in as");
    // The session ends while the page is open (expired, or signed out from another browser).
    await page.context().clearCookies();
    await page.getByRole("button", { name: "Create key" }).click();
    const createDialog = page.getByRole("dialog", { name: "Create an API key" });
    await createDialog.getByLabel("Name").fill("after the session ended");
    await createDialog.getByRole("button", { name: "Create key" }).click();

    const ended = page.getByRole("alertdialog", { name: "Your session has ended" });
    await expect(ended).toBeVisible();
    await expect(ended).toBeInViewport();
    await expect(page.getByTestId("session-state")).toContainText("Session ended");
    await expect(page.getByTestId("session-state")).not.toContainText("Signed in as");

    await ended.getByRole("link", { name: "Sign in again" }).click();
    await expect(page).toHaveURL(/\/sign-in\?next=%2Fkeys%3Ffrom%3Dsession-test$/);
    // The wallet is still connected to the site: one click signs the same address in again.
    await page.getByRole("button", { name: `Sign in as ${wallet.address.slice(0, 6)}` }).click();
    await expect(page).toHaveURL(/\/keys\?from=session-test$/);
    await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
    await expect(page.getByRole("alertdialog")).toHaveCount(0);
    await expect(page.getByTestId("session-state")).toContainText("Signed in as");

    // A return address off this site is ignored: sign-in goes to the overview instead.
    await page.goto("/sign-in?next=//evil.example/keys");
    await expect(page).toHaveURL(/\/overview$/);
  });

  await test.step("see the starter grant on the credits page", async () => {
    await openFromNav(page, "Credits");
    await expect(page.getByTestId("credit-balance")).toContainText("100");
    const grant = page.getByRole("row", { name: /grant/ });
    await expect(grant).toHaveCount(1);
    await expect(grant.getByText("+100")).toBeVisible();
  });

  await test.step("sign out: back to sign-in, and the dashboard is closed", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/sign-in$/);
    await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
    // Each page asks to sign in, naming itself as where to return.
    await page.goto("/overview");
    await expect(page).toHaveURL(/\/sign-in\?next=%2Foverview$/);
    await page.goto("/keys");
    await expect(page).toHaveURL(/\/sign-in\?next=%2Fkeys$/);
  });
});

test("a developer who rejects the signature is told so and can try again", async ({ page }) => {
  const wallet = await installTestWallet(page);
  wallet.rejectSignatures(true);

  await page.goto("/sign-in");
  await page.getByRole("button", { name: testWalletName }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Request rejected" })).toBeVisible();
  await expect(page).toHaveURL(/\/sign-in$/);

  wallet.rejectSignatures(false);
  await page.getByRole("button", { name: /Sign in as/ }).click();
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
});
