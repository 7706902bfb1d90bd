// A developer wires up a webhook from the dashboard: an endpoint pointing at a receiver this test runs on
// 127.0.0.1, its signing secret shown once, a test event whose signature the client library verifies, the
// delivery listed as succeeded, a secret rotation and the endpoint's deletion through the confirm dialog.
// Then one debugs a delivery their receiver refused, on a desktop and on a phone: opened from Deliveries, it
// shows the request as the receiver got it and each attempt's answer, and Redeliver sends it again.
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { verifyWebhook } from "../lib/client/src/index";
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from "../tests/support/webhook-receiver";
import { openFromNav, runJob, signInNewDeveloper } from "./dashboard-session";

const secretPattern = /^whsec_[A-Za-z0-9+/]{43}=$/;
const receiverPath = "/hooks/e2e";

let receiver: WebhookReceiver;
test.beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
test.afterAll(async () => {
  await receiver?.close();
});

/** Reads the secret the "Signing secret" dialog shows, closes the dialog and checks the secret is gone. */
async function keepSigningSecret(page: Page): Promise<string> {
  const dialog = page.getByRole("dialog", { name: "Signing secret" });
  await expect(dialog.getByText("you won't see it again", { exact: false })).toBeVisible();
  const field = dialog.getByRole("textbox", { name: "Webhook signing secret" });
  await expect(field).toHaveValue(secretPattern);
  const secret = await field.inputValue();
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(page.getByRole("dialog")).toHaveCount(0);
  expect(await page.content()).not.toContain(secret);
  return secret;
}

/** Presses "Send test" and waits for the request it causes to reach the receiver. */
async function sendTestEvent(page: Page): Promise<ReceivedWebhook> {
  const before = receiver.received.length;
  await page.getByRole("row", { name: receiverPath }).getByRole("button", { name: "Send test" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Test event queued." })).toBeVisible();
  await expect
    .poll(() => receiver.received.length, { message: "the receiver gets the test event" })
    .toBeGreaterThan(before);
  return receiver.received[before];
}

/** The delivery of one event in the page's Deliveries table, once it shows as succeeded. */
async function expectDeliverySucceeded(page: Page, eventId: string) {
  const delivery = page.getByRole("table", { name: "Deliveries" }).getByRole("row", { name: eventId });
  await expect(delivery.getByText("webhook.test", { exact: true })).toBeVisible();
  await expect(delivery.getByText("succeeded", { exact: true })).toBeVisible();
}

test("a developer adds a webhook endpoint, verifies a signed test event, rotates the secret and deletes the endpoint", async ({
  page,
  baseURL,
}) => {
  await signInNewDeveloper(page, baseURL as string, "Hedy Lamarr");
  const url = receiver.url(receiverPath);
  const endpointRow = page.getByRole("row", { name: receiverPath });

  let secret = "";
  await test.step("add an endpoint from the Webhooks page and see its secret once", async () => {
    await openFromNav(page, "Webhooks");
    await expect(page.getByText("No webhook endpoints yet")).toBeVisible();
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const dialog = page.getByRole("dialog", { name: "Add a webhook endpoint" });
    await dialog.getByLabel("Endpoint URL").fill(url);
    await expect(dialog.getByRole("checkbox", { name: "job.completed" })).toBeChecked();
    await dialog.getByRole("button", { name: "Add endpoint" }).click();

    secret = await keepSigningSecret(page);
    await expect(endpointRow.getByText("enabled", { exact: true })).toBeVisible();
  });

  await test.step("send a test event: the receiver gets a webhook.test POST signed with the secret", async () => {
    const received = await sendTestEvent(page);
    expect(received.method).toBe("POST");
    expect(received.headers["content-type"]).toBe("application/json");
    const event = verifyWebhook(received.body, received.headers, secret);
    expect(event.type).toBe("webhook.test");
    expect(event.data).toEqual({});

    await expectDeliverySucceeded(page, String(received.headers["webhook-id"]));
  });

  await test.step("rotate the secret: a new one, shown once; both sign during the overlap", async () => {
    await endpointRow.getByRole("button", { name: "Rotate secret" }).click();
    const rotated = await keepSigningSecret(page);
    expect(rotated).not.toBe(secret);

    const received = await sendTestEvent(page);
    expect(verifyWebhook(received.body, received.headers, rotated).type).toBe("webhook.test");
    expect(verifyWebhook(received.body, received.headers, secret).type).toBe("webhook.test");
    await expectDeliverySucceeded(page, String(received.headers["webhook-id"]));
  });

  await test.step("delete the endpoint after confirming; a failed attempt stays in the dialog", async () => {
    const [endpoint] = (await (await page.request.get("/api/developers/webhooks")).json()) as { endpointId: string }[];
    // The first DELETE fails as a server outage would; the dialog must say so and let the person try again.
    await page.route(
      `**/api/developers/webhooks/${endpoint.endpointId}`,
      (route) =>
        route.request().method() === "DELETE"
          ? route.fulfill({
              status: 503,
              json: { error: { code: "SERVICE_UNAVAILABLE", message: "Try again shortly.", requestId: "req_e2e" } },
            })
          : route.fallback(),
      { times: 1 },
    );

    await endpointRow.getByRole("button", { name: "Delete" }).click();
    const confirm = page.getByRole("alertdialog", { name: "Delete webhook endpoint" });
    await expect(confirm.getByText(url)).toBeVisible();
    await confirm.getByRole("button", { name: "Delete endpoint" }).click();
    await expect(confirm.getByRole("alert").filter({ hasText: "Could not delete the endpoint" })).toContainText(
      "SERVICE_UNAVAILABLE",
    );

    // Once deleted, the page no longer asks for the endpoint's deliveries (they are gone with it: 404).
    let deleted = false;
    const askedAfterDeletion: string[] = [];
    page.on("response", (r) => {
      if (r.request().method() === "DELETE" && r.url().endsWith(`/webhooks/${endpoint.endpointId}`) && r.ok())
        deleted = true;
    });
    page.on("request", (r) => {
      if (deleted && r.url().includes(`/webhooks/${endpoint.endpointId}/`)) askedAfterDeletion.push(r.url());
    });
    await confirm.getByRole("button", { name: "Delete endpoint" }).click();
    await expect(page.getByRole("alertdialog")).toHaveCount(0);
    await expect(endpointRow).toHaveCount(0);
    expect(deleted).toBe(true);
    expect(askedAfterDeletion).toEqual([]);
    await expect(page.getByText("No webhook endpoints yet")).toBeVisible();
    expect(await (await page.request.get("/api/developers/webhooks")).json()).toEqual([]);
  });
});

/** A receiver that refuses the first request to `debugPath…` paths, as a handler with a bug would. */
const debugPath = "/hooks/debug";
const refusal = JSON.stringify({ error: "signature check failed", hint: "raw body was re-serialised" });

for (const viewport of [
  { name: "desktop", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
]) {
  test(`a developer opens a delivery their endpoint refused, sees what was sent and answered, and redelivers it (${viewport.name})`, async ({
    page,
    context,
    baseURL,
  }) => {
    test.setTimeout(120_000);
    await page.setViewportSize(viewport);
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    receiver.respond((path, nth) => (path.startsWith(debugPath) && nth === 0 ? { status: 500, body: refusal } : 200));
    const dev = await signInNewDeveloper(page, baseURL as string, `Debugger ${viewport.name}`);
    const path = `${debugPath}/${viewport.name}`;
    const created = await page.request.post("/api/developers/webhooks", {
      headers: { origin: baseURL as string },
      data: { url: receiver.url(path), events: ["job.completed"] },
    });
    expect(created.status(), await created.text()).toBe(201);
    const { secret } = (await created.json()) as { secret: string };
    const before = receiver.received.length;

    await openFromNav(page, "Webhooks");
    await page.getByRole("row", { name: path }).getByRole("button", { name: "Send test" }).click();
    await expect.poll(() => receiver.received.filter((r) => r.path === path).length).toBe(1);
    const [refused] = receiver.received.slice(before).filter((r) => r.path === path);
    const webhookId = String(refused.headers["webhook-id"]);

    const dialog = page.getByRole("dialog", { name: "Webhook delivery" });
    await test.step("Deliveries shows the endpoint's deliveries; View opens one", async () => {
      await page.getByRole("row", { name: path }).getByRole("button", { name: "Deliveries" }).click();
      const deliveries = page.getByRole("table", { name: "Deliveries" });
      await expect(deliveries).toBeInViewport();
      await deliveries.getByRole("row", { name: webhookId }).getByRole("button", { name: "View" }).click();
      await expect(dialog).toBeVisible();
    });

    await test.step("the request: the headers the receiver got, and the exact body (copied byte for byte)", async () => {
      const headers = dialog.getByRole("definition");
      for (const name of ["content-type", "webhook-id", "webhook-timestamp", "webhook-signature"])
        await expect(dialog.getByText(name, { exact: true })).toBeVisible();
      await expect(headers.filter({ hasText: webhookId })).toHaveCount(1);
      const signature = String(refused.headers["webhook-signature"]);
      await expect(headers.filter({ hasText: signature })).toHaveCount(1);
      const body = dialog.getByRole("region", { name: "Request" }).getByLabel("Request body");
      await expect(body).toHaveText(JSON.stringify(JSON.parse(refused.body), null, 2));
      await dialog.getByRole("button", { name: "Copy body" }).click();
      await expect(dialog.getByRole("button", { name: "Copied" })).toBeVisible();
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      expect(copied).toBe(refused.body);
      const shownHeaders = Object.fromEntries(
        await dialog
          .getByRole("term")
          .evaluateAll((terms) => terms.map((t) => [t.textContent ?? "", t.nextElementSibling?.textContent ?? ""])),
      );
      expect(verifyWebhook(copied, shownHeaders, secret).type).toBe("webhook.test");
    });

    await test.step("each attempt: the receiver's status, its answer, the latency and the error", async () => {
      const first = dialog.getByRole("listitem", { name: "Attempt 1" });
      await expect(first.getByText("HTTP 500")).toBeVisible();
      await expect(first.getByText("BAD_STATUS")).toBeVisible();
      await expect(first.getByText(/^\d+ ms$/)).toBeVisible();
      await expect(first.getByLabel("Response body of attempt 1")).toHaveText(refusal);
      // The retry (5 s later) succeeds; the open dialog follows it.
      const second = dialog.getByRole("listitem", { name: "Attempt 2" });
      await expect(second.getByText("HTTP 200")).toBeVisible({ timeout: 30_000 });
      await expect(dialog.getByText("succeeded", { exact: true })).toBeVisible();
    });

    await test.step("Redeliver sends the same event, with the same webhook-id, again", async () => {
      await dialog.getByRole("button", { name: "Redeliver" }).click();
      await expect(dialog.getByRole("status")).toHaveText("Redelivery queued, with the same webhook-id.");
      await expect(dialog.getByRole("listitem", { name: "Attempt 3" }).getByText("HTTP 200")).toBeVisible({
        timeout: 20_000,
      });
      const sent = receiver.received.filter((r) => r.path === path).map((r) => r.headers["webhook-id"]);
      expect(sent).toEqual([webhookId, webhookId, webhookId]);
    });

    await test.step("the dialog fits the screen and passes axe", async () => {
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      const box = await dialog.boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= viewport.width).toBe(true);
      await dialog.getByRole("button", { name: "Redeliver" }).scrollIntoViewIfNeeded();
      await expect(dialog.getByRole("button", { name: "Redeliver" })).toBeInViewport();
      await page.screenshot({ path: test.info().outputPath(`delivery-${viewport.name}.png`) });
      const axe = await new AxeBuilder({ page }).include('[role="dialog"]').analyze();
      expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical")).toEqual([]);
      await page.keyboard.press("Escape");
      await expect(dialog).toHaveCount(0);
    });

    await test.step("a job's page lists its deliveries with their endpoint, and each opens", async () => {
      const job = await runJob(page.request, dev.apiKey, "text-sentiment", { text: "Webhooks you can debug." });
      await page.goto(`/jobs/${job.jobId}`);
      const deliveries = page.getByRole("table", { name: "Webhook deliveries of this job" });
      const row = deliveries.getByRole("row", { name: "job.completed" });
      await expect(row).toBeVisible({ timeout: 60_000 });
      // (On a phone the rows are stacked cards, without column headers.)
      if (viewport.name === "desktop")
        await expect(deliveries.getByRole("columnheader", { name: "Endpoint" })).toHaveCount(1);
      await expect(row.getByText(receiver.url(path), { exact: true })).toBeVisible();
      await row.getByRole("button", { name: "View" }).click();
      await expect(dialog.getByText(receiver.url(path), { exact: false }).first()).toBeVisible();
      await expect(dialog.getByLabel("Request body")).toContainText(`"jobId": "${job.jobId}"`);
    });
  });
}
