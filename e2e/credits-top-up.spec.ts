// A developer buys credits with the wallet they signed in with: Add credits on the Credits page, the test
// wallet (a viem account sending real transactions to the local chain) is named on the wrong network and
// switched, shows its token balance (Pay stops above it), pays, and the page follows the payment to credited
// while the balance grows. A reload mid-way keeps following it.
import { expect, test } from "@playwright/test";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { openFromNav } from "./dashboard-session";
import { e2eChainId, e2eChainRpcUrl, fundWallet } from "./local-chain";
import { installTestWallet, testWalletName } from "./test-wallet";

test("a developer adds credits from the wallet, follows the payment to credited through a reload, and sees the balance grow", async ({
  page,
}) => {
  const privateKey = generatePrivateKey();
  await fundWallet(privateKeyToAccount(privateKey).address, "10");
  const wallet = await installTestWallet(page, privateKey, { chain: { rpcUrl: e2eChainRpcUrl, chainId: e2eChainId } });
  const balance = page.getByTestId("credit-balance");

  await test.step("sign in and open Credits", async () => {
    await page.goto("/sign-in");
    await page.getByRole("button", { name: testWalletName }).click();
    await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
    await openFromNav(page, "Credits");
    await expect(balance).toContainText("100");
  });

  await test.step("a wallet on another network is named before Pay, and declining the switch says so", async () => {
    wallet.rejectSwitches(true);
    await page.getByRole("button", { name: "Add credits" }).click();
    const dialog = page.getByRole("dialog", { name: "Add credits" });
    const network = dialog.getByTestId("wallet-network");
    await expect(network).toContainText("Your wallet is on Ethereum");
    await expect(dialog.getByRole("button", { name: "Pay" })).toBeDisabled();
    await network.getByRole("button", { name: /^Switch to / }).click();
    await expect(dialog.getByText(/You declined switching to \w+/)).toBeVisible();
    await expect(dialog.getByText("rejected the request")).toHaveCount(0);
    wallet.rejectSwitches(false);
    await network.getByRole("button", { name: /^Switch to / }).click();
    await expect(network).toHaveCount(0);
    expect(wallet.chainId()).toBe(e2eChainId);
  });

  await test.step("the wallet's balance is shown, and asking more than it holds stops Pay with a clear message", async () => {
    const dialog = page.getByRole("dialog", { name: "Add credits" });
    await expect(dialog.getByTestId("wallet-token-balance")).toHaveText("Your wallet holds 10 tUSD.");
    await dialog.getByLabel("Amount").fill("2000");
    await expect(dialog.getByText("You pay 20 tUSD for 2,000 credits")).toBeVisible();
    await expect(dialog.getByRole("alert").filter({ hasText: "more than your wallet holds (10 tUSD)" })).toBeVisible();
    await expect(dialog.getByRole("button", { name: "Pay" })).toBeDisabled();
    await dialog.getByLabel("Amount").fill("1000");
    await expect(dialog.getByRole("button", { name: "Pay" })).toBeEnabled();
  });

  await test.step("a payment rejected in the wallet says so and sends nothing", async () => {
    wallet.rejectTransactions(true);
    const dialog = page.getByRole("dialog", { name: "Add credits" });
    await dialog.getByRole("button", { name: "Pay" }).click();
    await expect(dialog.getByText("Payment rejected")).toBeVisible();
    await expect(dialog.getByText("Nothing was sent")).toBeVisible();
    wallet.rejectTransactions(false);
  });

  await test.step("pay 250 credits: the price is shown in the token, the wallet pays, the server records it", async () => {
    const dialog = page.getByRole("dialog", { name: "Add credits" });
    await dialog.getByLabel("Amount").fill("250");
    await expect(dialog.getByText("You pay 2.5 tUSD for 250 credits")).toBeVisible();
    await dialog.getByRole("button", { name: "Pay" }).click();
    await expect(dialog.getByRole("listitem").filter({ hasText: "Recorded by the server" })).toHaveAttribute(
      "data-state",
      "done",
    );
  });

  await test.step("a reload mid-way follows the pending top-up from the server until it is credited", async () => {
    await page.reload();
    const topUps = page.getByRole("table", { name: "Top-ups" });
    await expect(topUps.getByRole("row").nth(1)).toContainText(/Waiting to be mined|Confirming|Credited/);
    await expect(topUps.getByRole("row").nth(1)).toContainText("Credited", { timeout: 30_000 });
    await expect(topUps.getByRole("row").nth(1)).toContainText("2.5 tUSD");
    await expect(balance).toContainText("350");
    await expect(page.getByRole("cell", { name: /Top-up: 2.5 tUSD/ })).toBeVisible();
  });

  await test.step("a payment whose recording the connection cut off is named again when the page loads, and credited", async () => {
    await page.route("**/api/credits/top-ups", (route) =>
      route.request().method() === "POST" ? route.abort("connectionreset") : route.continue(),
    );
    await page.getByRole("button", { name: "Add credits" }).click();
    const dialog = page.getByRole("dialog", { name: "Add credits" });
    await dialog.getByLabel("Amount").fill("50");
    await dialog.getByRole("button", { name: "Pay" }).click();
    await expect(dialog.getByRole("listitem").filter({ hasText: "Sent from your wallet" })).toHaveAttribute(
      "data-state",
      "done",
    );
    await expect(dialog.getByRole("listitem").filter({ hasText: "Recorded by the server" })).toHaveAttribute(
      "data-state",
      "current",
    );
    await page.unroute("**/api/credits/top-ups");
    await page.reload();
    const newest = page.getByRole("table", { name: "Top-ups" }).getByRole("row").nth(1);
    await expect(newest).toContainText("0.5 tUSD");
    await expect(newest).toContainText("Credited", { timeout: 30_000 });
    await expect(balance).toContainText("400");
  });

  await test.step("?add=1 opens Add credits directly, and a second payment is followed to credited in the dialog", async () => {
    await page.goto("/credits?add=1");
    const dialog = page.getByRole("dialog", { name: "Add credits" });
    await dialog.getByRole("button", { name: "100", exact: true }).click();
    await dialog.getByRole("button", { name: "Pay" }).click();
    await expect(dialog.getByText("Credited: +100 credits")).toBeVisible({ timeout: 30_000 });
    await expect(balance).toContainText("500");
  });
});
