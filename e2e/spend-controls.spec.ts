// Spend controls (CONTRACT §11): a developer caps what a key given to a contractor may spend, watches it
// spend, raises and removes the cap from the key's row, sees usage by key, and is warned by a banner once
// the balance is below the alert threshold set on the profile.
import { expect, test, type Page } from "@playwright/test";
import { openFromNav, runJob, signInNewDeveloper } from "./dashboard-session";

const keyRow = (page: Page) => page.getByRole("row", { name: /Contractor/ });

test("a developer sets a credit limit on a key, raises and removes it, and is warned when the balance runs low", async ({
  page,
  baseURL,
}) => {
  await signInNewDeveloper(page, baseURL ?? "");

  let secret = "";
  await test.step("create a key with a daily limit of 3 credits", async () => {
    await openFromNav(page, "API keys");
    await page.getByRole("button", { name: "Create key" }).click();
    const dialog = page.getByRole("dialog", { name: "Create an API key" });
    await dialog.getByLabel("Name").fill("Contractor");
    await dialog.getByLabel("Credit limit (optional)").fill("3");
    await dialog.getByLabel("Resets").selectOption("daily");
    await dialog.getByRole("button", { name: "Create key" }).click();
    const secretField = page.getByRole("dialog").getByRole("textbox", { name: "Your new API key" });
    await expect(secretField).toHaveValue(/^dev_/);
    secret = await secretField.inputValue();
    await page.getByRole("button", { name: "Done" }).click();
    await expect(keyRow(page).getByText("0 of 3 per day")).toBeVisible();
    await expect(keyRow(page).getByText("3 left")).toBeVisible();
  });

  await test.step("the key spends its limit, then is refused with 402 KEY_CREDIT_LIMIT", async () => {
    for (let i = 0; i < 3; i++) await runJob(page.request, secret, "token-count", { text: `contractor job ${i}` });
    const refused = await page.request.post("/api/marketplace/services/token-count/execute", {
      headers: { "x-api-key": secret },
      data: { input: { text: "one too many" } },
    });
    expect(refused.status()).toBe(402);
    expect((await refused.json()).error).toMatchObject({
      code: "KEY_CREDIT_LIMIT",
      details: { creditLimit: 3, creditLimitRemaining: 0, creditLimitReset: "daily" },
    });
    await page.reload();
    await expect(keyRow(page).getByText("3 of 3 per day")).toBeVisible();
    await expect(keyRow(page).getByText("0 left")).toBeVisible();
    await expect(keyRow(page).getByRole("progressbar")).toBeVisible();
  });

  await test.step("raise the limit from the key's row, then remove it", async () => {
    await keyRow(page).getByRole("button", { name: "Limit" }).click();
    const dialog = page.getByRole("dialog", { name: "Credit limit of Contractor" });
    await dialog.getByLabel("Credit limit (optional)").fill("10");
    await dialog.getByRole("button", { name: "Save limit" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(keyRow(page).getByText("3 of 10 per day")).toBeVisible();
    await expect(keyRow(page).getByText("7 left")).toBeVisible();
    await runJob(page.request, secret, "token-count", { text: "fits again" });

    await keyRow(page).getByRole("button", { name: "Limit" }).click();
    await page
      .getByRole("dialog", { name: "Credit limit of Contractor" })
      .getByRole("button", { name: "Remove limit" })
      .click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(keyRow(page).getByText("No limit")).toBeVisible();
  });

  await test.step("usage is split by key", async () => {
    await openFromNav(page, "Usage");
    const byKey = page.getByRole("table", { name: "By API key" });
    await expect(byKey.getByRole("row", { name: /Contractor/ })).toContainText("4");
  });

  await test.step("a low-balance threshold above the balance shows the banner, linking to Add credits", async () => {
    await expect(page.getByRole("status", { name: "Low balance" })).toHaveCount(0);
    await openFromNav(page, "Profile");
    await page.getByRole("button", { name: "Edit profile" }).click();
    await page.getByLabel("Low-balance alert (optional)").fill("500");
    await page.getByRole("button", { name: "Save changes" }).click();
    const banner = page.getByRole("status", { name: "Low balance" });
    await expect(banner).toContainText("96 credits left");
    await expect(banner.getByRole("link", { name: "Add credits" })).toHaveAttribute("href", "/credits?add=1");
  });
});
