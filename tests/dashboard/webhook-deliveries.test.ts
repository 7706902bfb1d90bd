// The webhooks page explains a delivery the policy refused (CONTRACT §8: DESTINATION_FORBIDDEN, failed at once):
// why, in words, and what to change, rendered from the same data the page's queries hold.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { profileKeys } from "@/components/data/profile";
import type { Profile, WebhookDelivery, WebhookDeliveryPage, WebhookEndpoint } from "@/components/data/types";
import { webhookKeys } from "@/components/data/webhooks";
import { WebhooksPanel } from "@/components/webhooks/webhooks-panel";

const at = "2026-11-27T12:00:00.000Z";
const profile: Profile = {
  developerId: "d1",
  walletAddress: "0x0000000000000000000000000000000000000001",
  name: "Ada",
  email: null,
  organization: null,
  lowBalanceThreshold: null,
  createdAt: at,
};

function endpoint(url: string): WebhookEndpoint {
  return {
    endpointId: "e1",
    url,
    events: ["job.completed"],
    description: null,
    status: "enabled",
    disabledReason: null,
    createdAt: at,
    updatedAt: at,
  };
}

function delivery(fields: Partial<WebhookDelivery>): WebhookDelivery {
  return {
    deliveryId: "w1",
    endpointId: "e1",
    eventId: "msg_1",
    eventType: "webhook.test",
    jobId: null,
    status: "failed",
    attempts: 1,
    lastResponseStatus: null,
    lastError: null,
    lastLatencyMs: 3,
    nextAttemptAt: null,
    createdAt: at,
    updatedAt: at,
    ...fields,
  };
}

/** The webhooks page's text with one endpoint and its deliveries (newest first) already loaded. */
function renderPage(url: string, deliveries: WebhookDelivery[]): string {
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  client.setQueryData(profileKeys.all, profile);
  client.setQueryData(webhookKeys.endpoints, [endpoint(url)]);
  const page: WebhookDeliveryPage = {
    data: deliveries,
    pagination: {
      page: 1,
      limit: 20,
      total: deliveries.length,
      totalPages: 1,
      hasMore: false,
      totalIsLowerBound: false,
      nextCursor: null,
      prevCursor: null,
    },
  };
  client.setQueryData(webhookKeys.deliveries("e1", { page: 1 }), page);
  const html = renderToStaticMarkup(
    createElement(QueryClientProvider, { client }, createElement(WebhooksPanel, { suggestedProfileName: "Ada" })),
  );
  return html.replace(/<[^>]+>/g, " ").replace(/&#x27;/g, "'");
}

describe("a delivery refused by policy on the webhooks page", () => {
  it("says the https endpoint resolves to a private address and to use a public HTTPS URL", () => {
    const text = renderPage("https://hooks.example.com/in", [delivery({ lastError: "DESTINATION_FORBIDDEN" })]);
    expect(text).toContain("This endpoint's host resolves to a private address");
    expect(text).toContain("will not be retried");
    expect(text).toContain("Use a public HTTPS URL");
    expect(text).toContain("DESTINATION_FORBIDDEN");
  });

  it("says plain http reaches only allowed hosts for an http endpoint", () => {
    const text = renderPage("http://hooks.example.com/in", [delivery({ lastError: "DESTINATION_FORBIDDEN" })]);
    expect(text).toContain("plain http reaches only hosts this server's operator allows");
    expect(text).toContain("Use a public HTTPS URL");
    // A developer pointing a webhook at a receiver on their machine learns how local testing works.
    expect(text).toContain("To test with a receiver on your machine");
    expect(text).toContain("WEBHOOK_ALLOWED_HOSTS=127.0.0.1,localhost");
  });

  it("says nothing of the policy once a newer delivery got through, nor for a receiver's own failure", () => {
    const fixed = renderPage("https://hooks.example.com/in", [
      delivery({ deliveryId: "w2", status: "succeeded", lastResponseStatus: 204 }),
      delivery({ lastError: "DESTINATION_FORBIDDEN" }),
    ]);
    expect(fixed).not.toContain("Use a public HTTPS URL");
    const receiverDown = renderPage("https://hooks.example.com/in", [
      delivery({ status: "pending", lastResponseStatus: 500, lastError: "BAD_STATUS" }),
    ]);
    expect(receiverDown).toContain("BAD_STATUS");
    expect(receiverDown).not.toContain("private address");
  });
});
