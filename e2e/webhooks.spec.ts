// A developer wires up a webhook from the dashboard: an endpoint pointing at a receiver this test runs on
// 127.0.0.1, its signing secret shown once, a test event whose signature the client library verifies, the
// delivery listed as succeeded, a secret rotation and the endpoint's deletion through the confirm dialog.
import { expect, test, type Page } from "@playwright/test";
import { verifyWebhook } from "../lib/client/src/index";
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from "../tests/support/webhook-receiver";
import { openFromNav, signInNewDeveloper } from "./dashboard-session";

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
