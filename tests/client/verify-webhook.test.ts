// verifyWebhook against the server's signer and against `standardwebhooks`, an independent implementation
// of the same scheme, in both directions.
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { generateWebhookSecret, signWebhook } from "@/lib/domain/webhook-signing";
import { verifyWebhook, WebhookVerificationError, ExecutionNetworkError } from "../../lib/client/src/index";

const body = JSON.stringify({
  type: "job.completed",
  timestamp: "2026-11-23T00:00:00.000Z",
  data: { job: { jobId: "j1" }, sequence: 7 },
});
const eventId = "evt_0123456789abcdef0123456789abcdef";
const nowSeconds = () => Math.floor(Date.now() / 1000);

function serverHeaders(secrets: string[], timestamp = nowSeconds(), payload = body) {
  return {
    "webhook-id": eventId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signWebhook(secrets, eventId, timestamp, payload),
  };
}

const failure = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
};

describe("verifyWebhook", () => {
  it("accepts what the server signs and returns the parsed event", () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(verifyWebhook(body, serverHeaders([secret]), secret)).toEqual(JSON.parse(body));
  });

  it("agrees with standardwebhooks: our signatures verify there, and theirs verify here", () => {
    const secret = generateWebhookSecret();
    expect(new Webhook(secret).verify(body, serverHeaders([secret]))).toEqual(JSON.parse(body));

    const timestamp = new Date();
    const theirs = new Webhook(secret).sign(eventId, timestamp, body);
    const headers = {
      "webhook-id": eventId,
      "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
      "webhook-signature": theirs,
    };
    expect(verifyWebhook(body, headers, secret)).toEqual(JSON.parse(body));
    expect(serverHeaders([secret], Math.floor(timestamp.getTime() / 1000))["webhook-signature"]).toBe(theirs);
  });

  it("during a rotation, a delivery signed with both secrets verifies with either, here and in standardwebhooks", () => {
    const previous = generateWebhookSecret();
    const current = generateWebhookSecret();
    const headers = serverHeaders([current, previous]);
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(verifyWebhook(body, headers, previous).type).toBe("job.completed");
    expect(verifyWebhook(body, headers, current).type).toBe("job.completed");
    expect(new Webhook(previous).verify(body, headers)).toBeTruthy();
    expect(new Webhook(current).verify(body, headers)).toBeTruthy();
    // A receiver holding several secrets accepts a delivery signed by any one of them.
    expect(verifyWebhook(body, serverHeaders([previous]), [current, previous]).type).toBe("job.completed");
  });

  it("refuses a wrong secret, a changed body, a changed id and missing headers", () => {
    const secret = generateWebhookSecret();
    const headers = serverHeaders([secret]);
    for (const run of [
      () => verifyWebhook(body, headers, generateWebhookSecret()),
      () => verifyWebhook(body.replace("7", "8"), headers, secret),
      () => verifyWebhook(body, { ...headers, "webhook-id": "evt_other" }, secret),
      () =>
        verifyWebhook(
          body,
          { ...headers, "webhook-signature": headers["webhook-signature"].replace("v1,", "v2,") },
          secret,
        ),
      () => verifyWebhook(body, { "webhook-id": eventId, "webhook-timestamp": headers["webhook-timestamp"] }, secret),
    ]) {
      const error = failure(run);
      expect(error).toBeInstanceOf(WebhookVerificationError);
      expect(error).toBeInstanceOf(ExecutionNetworkError);
    }
  });

  it("refuses timestamps outside the tolerance, either way", () => {
    const secret = generateWebhookSecret();
    expect(failure(() => verifyWebhook(body, serverHeaders([secret], nowSeconds() - 301), secret))).toBeInstanceOf(
      WebhookVerificationError,
    );
    expect(failure(() => verifyWebhook(body, serverHeaders([secret], nowSeconds() + 301), secret))).toBeInstanceOf(
      WebhookVerificationError,
    );
    expect(
      verifyWebhook(body, serverHeaders([secret], nowSeconds() - 600), secret, { toleranceSeconds: 900 }).type,
    ).toBe("job.completed");
  });

  it("reads Fetch Headers and Node's header objects alike", () => {
    const secret = generateWebhookSecret();
    const headers = serverHeaders([secret]);
    expect(verifyWebhook(body, new Headers(headers), secret).type).toBe("job.completed");
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyWebhook(Buffer.from(body), upper, secret).type).toBe("job.completed");
  });
});
