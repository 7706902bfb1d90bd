// A developer brings their own machine: adds a node on the Nodes page, starts it with the exact command the
// page shows (a real standalone node process), sees it live, runs a job placed on their own nodes from a
// service's playground and sees it ran there; then revokes it from the page.
import { spawn, type ChildProcess } from "node:child_process";
import { expect, test } from "@playwright/test";
import { openFromNav, signInNewDeveloper } from "./dashboard-session";

let node: ChildProcess | undefined;
test.afterEach(() => {
  if (node?.pid && node.exitCode === null) process.kill(-node.pid, "SIGKILL");
});

test("a developer adds a node, starts it with the shown command, and runs a job placed on it", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(180_000);
  await signInNewDeveloper(page, baseURL as string, "Node Owner");
  await openFromNav(page, "Nodes");

  let command = "";
  await test.step("add a node: name, region, services; the token and the start command are shown once", async () => {
    await page.getByRole("button", { name: "Add node" }).click();
    const dialog = page.getByRole("dialog", { name: "Add a node" });
    await dialog.getByLabel("Name").fill("my-laptop");
    await dialog.getByLabel("Region").fill("home");
    await dialog.getByRole("button", { name: "Add node" }).click();
    const added = page.getByRole("dialog", { name: "Node added" });
    await expect(added.getByRole("textbox", { name: "Node token" })).toHaveValue(/^node_[A-Za-z0-9_-]{43}$/);
    // On any machine: the published package (CONTRACT §14); in this checkout, the npm script with the same flags.
    const anywhere = (await added.getByLabel("Start command", { exact: true }).textContent()) ?? "";
    expect(anywhere).toMatch(
      /^npx @execution-network\/node --url http:\/\/127\.0\.0\.1:\d+ --token node_\S+ --services \S+/,
    );
    command = (await added.getByLabel("Start command in a checkout", { exact: true }).textContent()) ?? "";
    expect(command).toBe(anywhere.replace("npx @execution-network/node", "npm run node --"));
    await added.getByRole("button", { name: "Done" }).click();
    await expect(page.getByRole("table", { name: "Your nodes" }).getByRole("row", { name: /my-laptop/ })).toContainText(
      "Pending",
    );
  });

  await test.step("start it with exactly that command: it shows live within seconds", async () => {
    node = spawn(command, { shell: true, detached: true, stdio: "ignore", env: { ...process.env, LOG_LEVEL: "warn" } });
    await expect(page.getByRole("table", { name: "Your nodes" }).getByRole("row", { name: /my-laptop/ })).toContainText(
      "Live",
      { timeout: 60_000 },
    );
  });

  await test.step("run a job placed on own nodes from the playground: it runs on my-laptop", async () => {
    await openFromNav(page, "Services");
    await page.getByRole("link", { name: "Token count", exact: true }).click();
    await page.getByLabel("Runs on").selectOption("own");
    await page.getByRole("button", { name: /^Run/ }).click();
    // Run's answer, then the job page's render, on a busy machine: the other journeys' Run allows 20 s too.
    await expect(page).toHaveURL(/\/jobs\/[0-9a-f-]{36}$/, { timeout: 20_000 });
    await expect(page.getByTestId("job-status")).toHaveText("completed", { timeout: 60_000 });
    await expect(page.getByText(/my-laptop · home/)).toBeVisible();
    await expect(page.getByText("Your own nodes")).toBeVisible();
  });

  await test.step("revoke it from the page, after confirming", async () => {
    await openFromNav(page, "Nodes");
    const row = page.getByRole("table", { name: "Your nodes" }).getByRole("row", { name: /my-laptop/ });
    await expect(row).toContainText("1 completed");
    await row.getByRole("button", { name: "Revoke" }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Revoke node" }).click();
    await expect(row).toContainText("Revoked");
  });
});
