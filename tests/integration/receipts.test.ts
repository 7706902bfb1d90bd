// Execution receipts (CONTRACT §13), checked as an outsider would: the digests recomputed from the job the API
// returns, the signature verified with viem against types copied by hand from the contract (not the product's
// own), every field bound by it, the same bytes on every read, the job.completed webhook carrying it, the client
// library's verifyReceipt both ways, and the route's refusals (409, 404, scope).
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import { verifyTypedData, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ReceiptVerificationError,
  verifyReceipt,
  verifyWebhook,
  type ExecutionJob,
  type ExecutionReceipt,
} from "../../lib/client/src/index";
import { eq } from "drizzle-orm";
import { jobReceipts, webhookDeliveries } from "@/lib/db/schema";
import { db } from "@/lib/domain/database";
import { signal } from "@/lib/domain/signals";
import { webhookChannel } from "@/lib/domain/webhook-events";
import { completedJobReceipts } from "@/lib/engine/receipts";
import { signUpDeveloper, type Developer } from "../support/developer";
import { expectError } from "../support/expect-error";
import { eventually, submit, waitForStatus } from "../support/jobs";
import { startTestServer, type TestServer } from "../support/test-server";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

// Copied from CONTRACT §13, on purpose not imported from the product.
const contractDomain = { name: "Execution Network", version: "1" } as const;
const contractTypes = {
  ExecutionReceipt: [
    { name: "issuer", type: "string" },
    { name: "jobId", type: "string" },
    { name: "serviceId", type: "string" },
    { name: "developer", type: "address" },
    { name: "inputDigest", type: "bytes32" },
    { name: "resultDigest", type: "bytes32" },
    { name: "nodeId", type: "string" },
    { name: "ownNode", type: "bool" },
    { name: "attempt", type: "uint32" },
    { name: "creditCost", type: "uint64" },
    { name: "startedAt", type: "uint64" },
    { name: "completedAt", type: "uint64" },
  ],
} as const;

const digestOf = (value: unknown) => `0x${createHash("sha256").update(canonicalize(value)!).digest("hex")}`;

type Message = ExecutionReceipt["message"];
const verifyAsOutsider = (receipt: ExecutionReceipt, message: Message = receipt.message) =>
  verifyTypedData({
    address: receipt.signer as Hex,
    domain: contractDomain,
    types: contractTypes,
    primaryType: "ExecutionReceipt",
    message: {
      ...message,
      developer: message.developer as Hex,
      inputDigest: message.inputDigest as Hex,
      resultDigest: message.resultDigest as Hex,
      creditCost: BigInt(message.creditCost),
      startedAt: BigInt(message.startedAt),
      completedAt: BigInt(message.completedAt),
    },
    signature: receipt.signature as Hex,
  });

let server: TestServer;
let receiver: WebhookReceiver;
let dev: Developer;
let key: string;
let job: ExecutionJob;
let receiptText: string;
let receipt: ExecutionReceipt;
let signers: { current: string; previous: string[] };
let webhookSecret: string;
let endpointId: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  server = await startTestServer({ env: { WEBHOOK_ALLOWED_HOSTS: "127.0.0.1", STARTER_CREDITS: "1000" } });
  dev = await signUpDeveloper(server.baseUrl);
  key = await dev.createApiKey();
  const endpoint = await dev.withKey(key, "/api/developers/webhooks", {
    method: "POST",
    body: JSON.stringify({ url: receiver.url("/hooks"), events: ["job.completed"] }),
  });
  ({ secret: webhookSecret, endpointId } = (await endpoint.json()) as { secret: string; endpointId: string });
  // Members out of order, non-ASCII text and nested values: the digest is of the canonical form, not of these bytes.
  const submitted = await submit(dev, key, "token-count", { text: 'Zürich → 東京, \u00e9t\u00e9 "quoted" 1e3' });
  job = (await waitForStatus(dev, key, submitted.jobId)) as unknown as ExecutionJob;
  expect(job.status).toBe("completed");
  const res = await dev.withKey(key, `/api/developers/jobs/${job.jobId}/receipt`);
  expect(res.status).toBe(200);
  receiptText = await res.text();
  receipt = JSON.parse(receiptText) as ExecutionReceipt;
  signers = (await (await fetch(`${server.baseUrl}/api/receipts/signers`)).json()) as typeof signers;
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

describe("a completed job's receipt", () => {
  it("is exactly verifyTypedData's arguments plus the signer, and verifies with viem against the contract's types", async () => {
    expect(Object.keys(receipt)).toEqual(["domain", "types", "primaryType", "message", "signature", "signer"]);
    expect(receipt.domain).toEqual(contractDomain);
    expect(receipt.types).toEqual(contractTypes);
    expect(receipt.primaryType).toBe("ExecutionReceipt");
    expect(receipt.signer).toBe(signers.current);
    expect(await verifyAsOutsider(receipt)).toBe(true);
  });

  it("states the job as GET /api/developers/jobs/:jobId returns it, with digests of its exact input and result", () => {
    expect(receipt.message).toEqual(messageOf(job));
    expect(receipt.message.inputDigest).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it("states the same when the webhook dispatcher issues it, from the job its claim read", async () => {
    const submitted = await submit(dev, key, "token-count", { text: "issued by the dispatcher, \u00e9 東京 1e3" });
    const done = (await waitForStatus(dev, key, submitted.jobId)) as unknown as ExecutionJob;
    // Nothing has asked for this receipt but the job.completed webhook.
    const delivery = await eventually(
      async () => receiver.received.find((r) => r.body.includes(done.jobId)),
      (found) => found !== undefined,
    );
    const issued = verifyWebhook(delivery!.body, delivery!.headers as Record<string, string>, webhookSecret).data
      .receipt as ExecutionReceipt;
    expect(issued.message).toEqual(messageOf(done));
    expect(await verifyAsOutsider(issued)).toBe(true);
    const byRoute = await (await dev.withKey(key, `/api/developers/jobs/${done.jobId}/receipt`)).text();
    expect(byRoute).toBe(JSON.stringify(issued));
  });
});

/** What a receipt of the developer's job states: the job as its route returns it. */
function messageOf(job: ExecutionJob): Message {
  return {
    // The test server's APP_ORIGIN is its own address.
    issuer: new URL(server.baseUrl).origin,
    jobId: job.jobId,
    serviceId: "token-count",
    developer: dev.address,
    inputDigest: digestOf(job.input),
    resultDigest: digestOf(job.result),
    nodeId: job.assignedNode?.nodeId as string,
    ownNode: false,
    attempt: job.attempt,
    creditCost: job.creditCost,
    startedAt: Date.parse(job.startedAt as string),
    completedAt: Date.parse(job.completedAt as string),
  };
}

describe("a completed job's receipt, once issued", () => {
  it("binds every field: changing any one of them, or the signature, fails verification", async () => {
    const changed: { [K in keyof Message]: Message[K] } = {
      issuer: "https://elsewhere.example",
      jobId: "00000000-0000-4000-8000-000000000000",
      serviceId: "text-summarize",
      developer: "0x000000000000000000000000000000000000dEaD",
      inputDigest: digestOf({ text: "something else" }),
      resultDigest: digestOf({ summary: "forged", output: {} }),
      nodeId: "00000000-0000-4000-8000-000000000001",
      ownNode: !receipt.message.ownNode,
      attempt: receipt.message.attempt + 1,
      creditCost: receipt.message.creditCost + 1,
      startedAt: receipt.message.startedAt - 1,
      completedAt: receipt.message.completedAt + 1,
    };
    for (const field of Object.keys(changed) as (keyof Message)[]) {
      const tampered = { ...receipt.message, [field]: changed[field] };
      expect(await verifyAsOutsider(receipt, tampered), field).toBe(false);
    }
    const last = receipt.signature.slice(-4, -2) === "00" ? "01" : "00";
    const signature = `${receipt.signature.slice(0, -4)}${last}${receipt.signature.slice(-2)}`;
    expect(await verifyAsOutsider({ ...receipt, signature })).toBe(false);
  });

  it("never changes: the same bytes on every read, with the key or the wallet session", async () => {
    const again = await (await dev.withKey(key, `/api/developers/jobs/${job.jobId}/receipt`)).text();
    const bySession = await (await dev.session(`/api/developers/jobs/${job.jobId}/receipt`)).text();
    expect(again).toBe(receiptText);
    expect(bySession).toBe(receiptText);
  });

  it("comes with the job.completed webhook as data.receipt, in the signed body", async () => {
    const delivery = await eventually(
      async () => receiver.received.find((r) => r.body.includes(job.jobId)),
      (found) => found !== undefined,
    );
    const event = verifyWebhook(delivery!.body, delivery!.headers as Record<string, string>, webhookSecret);
    expect(event.type).toBe("job.completed");
    expect(event.data.receipt).toEqual(receipt);
    expect(event.data.job?.jobId).toBe(job.jobId);
    // The stored body is written once, without the receipt: it is added from the stored receipt at each send.
    const stored = await (
      await db()
    )
      .select({ body: webhookDeliveries.body })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.jobId, job.jobId));
    expect(stored).toHaveLength(1);
    expect(stored[0].body).not.toContain('"receipt"');
  });

  it("is in the bytes a delivery's detail shows as sent, which its signature covers, and a redelivery sends them again", async () => {
    const sent = () => receiver.received.filter((r) => r.body.includes(job.jobId));
    await eventually(
      async () => sent(),
      (list) => list.length === 1,
    );
    const [{ deliveryId }] = (await (
      await dev.withKey(key, `/api/developers/jobs/${job.jobId}/webhook-deliveries`)
    ).json()) as { deliveryId: string }[];
    const detailPath = `/api/developers/webhooks/${endpointId}/deliveries/${deliveryId}`;
    type Detail = { attemptCount: number; request: { headers: Record<string, string>; body: string } };
    const detail = async () => (await (await dev.session(detailPath)).json()) as Detail;

    const first = await detail();
    expect(first.request.body).toBe(sent()[0].body);
    expect(first.request.headers["webhook-signature"]).toBe(sent()[0].headers["webhook-signature"]);
    const shown = verifyWebhook(first.request.body, first.request.headers, webhookSecret);
    expect(shown.data.receipt).toEqual(receipt);

    const res = await dev.session(`${detailPath}/redeliver`, { method: "POST" });
    expect(res.status).toBe(202);
    await eventually(
      async () => sent(),
      (list) => list.length === 2,
    );
    const [once, again] = sent();
    expect(again.body).toBe(once.body);
    const redelivered = verifyWebhook(again.body, again.headers as Record<string, string>, webhookSecret);
    expect(JSON.stringify(redelivered.data.receipt)).toBe(receiptText);
    const second = await eventually(detail, (d) => d.attemptCount === 2);
    expect(second.request.body).toBe(again.body);
    expect(second.request.headers["webhook-signature"]).toBe(again.headers["webhook-signature"]);
    expect(verifyWebhook(second.request.body, second.request.headers, webhookSecret).data.receipt).toEqual(receipt);
  });
});

describe("a job.completed delivery whose receipt cannot be issued", () => {
  it("is not sent, and is recorded as a failed attempt on the retry schedule, not claimed again for good", async () => {
    // A job that has not completed (no node of its own: it waits in routing), with a job.completed delivery as if
    // it had: the dispatcher finds no receipt to issue, as it would with a signing key that no longer opens.
    const res = await dev.withKey(key, "/api/developers/jobs", {
      method: "POST",
      body: JSON.stringify({
        type: "developer_job",
        payload: { serviceId: "token-count", input: { text: "never receipted" }, placement: "own" },
      }),
    });
    const waiting = (await res.json()) as ExecutionJob;
    const d = await db();
    const [{ accountId }] = await d
      .select({ accountId: webhookDeliveries.accountId })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.jobId, job.jobId))
      .limit(1);
    const [{ id: deliveryId }] = await d
      .insert(webhookDeliveries)
      .values({
        endpointId,
        accountId,
        eventId: `evt_unreceipted_${waiting.jobId}`,
        eventType: "job.completed",
        jobId: waiting.jobId,
        body: JSON.stringify({ type: "job.completed", data: { jobId: waiting.jobId } }),
      })
      .returning({ id: webhookDeliveries.id });
    await signal(d, webhookChannel, ""); // as the writes of deliveries do, so the dispatcher looks now

    type Detail = { status: string; attemptCount: number; lastError: string | null; nextAttemptAt: string | null };
    const detailPath = `/api/developers/webhooks/${endpointId}/deliveries/${deliveryId}`;
    const detail = await eventually(
      async () => (await (await dev.session(detailPath)).json()) as Detail,
      // Recorded, not only claimed: the claim counts the attempt before its outcome is written.
      (shown) => shown.lastError !== null,
    );
    expect(detail).toMatchObject({
      status: "pending",
      lastError: expect.stringMatching(/^Not sent: No receipt for job/),
    });
    expect(Date.parse(detail.nextAttemptAt!)).toBeGreaterThan(Date.now());
    expect(receiver.received.filter((r) => r.body.includes(waiting.jobId))).toEqual([]);
  });
});

describe("receipts issued together (a webhook dispatcher claim's)", () => {
  it("are each its own job's, one per job, the one the route answers, and keep one issued before", async () => {
    // A developer with no webhook: nothing issues these receipts but the calls below.
    const other = await signUpDeveloper(server.baseUrl);
    const otherKey = await other.createApiKey();
    const submitted = await Promise.all(
      Array.from({ length: 5 }, (_, i) => submit(other, otherKey, "token-count", { text: `issued together ${i}` })),
    );
    const done = await Promise.all(
      submitted.map(async (s) => (await waitForStatus(other, otherKey, s.jobId)) as unknown as ExecutionJob),
    );
    const ids = done.map((j) => j.jobId);
    const issuedBefore = await (await other.withKey(otherKey, `/api/developers/jobs/${ids[2]}/receipt`)).text();

    // As a dispatcher claim's job.completed events give them: a job twice, and one that does not exist.
    const issued = await completedJobReceipts([...ids, ids[0], "00000000-0000-4000-8000-000000000000"]);

    expect([...issued.keys()].sort()).toEqual([...ids].sort());
    expect(issued.get(ids[2])).toBe(issuedBefore);
    for (const job of done) {
      const text = issued.get(job.jobId)!;
      const together = JSON.parse(text) as ExecutionReceipt;
      expect(together.message.jobId).toBe(job.jobId);
      expect(together.message.resultDigest).toBe(digestOf(job.result));
      expect(await verifyAsOutsider(together)).toBe(true);
      expect(await (await other.withKey(otherKey, `/api/developers/jobs/${job.jobId}/receipt`)).text()).toBe(text);
    }
    // Issued again together: the same stored bytes.
    expect(await completedJobReceipts(ids)).toEqual(issued);

    // Stored in a short form (without the domain and types every receipt shares), answered whole; a row stored
    // whole, as receipts were before that form, is answered as it is.
    const rowOf = async (jobId: string) =>
      (await (await db()).select().from(jobReceipts).where(eq(jobReceipts.jobId, jobId)))[0].body;
    const short = await rowOf(ids[1]);
    expect(short.startsWith('{"message":')).toBe(true);
    expect(issued.get(ids[1])!.endsWith(short.slice(1))).toBe(true);
    await (
      await db()
    )
      .update(jobReceipts)
      .set({ body: issued.get(ids[1])! })
      .where(eq(jobReceipts.jobId, ids[1]));
    expect(await rowOf(ids[1])).toBe(issued.get(ids[1]));
    expect(await (await other.withKey(otherKey, `/api/developers/jobs/${ids[1]}/receipt`)).text()).toBe(
      issued.get(ids[1]),
    );
    expect(await completedJobReceipts(ids)).toEqual(issued);
  });
});

describe("verifyReceipt (client library)", () => {
  it("accepts the receipt of the job it states, signed by a listed signer", () => {
    expect(verifyReceipt(job, receipt, { signers })).toEqual(receipt.message);
    expect(verifyReceipt(job, receipt, { signers: [signers.current.toLowerCase()] })).toEqual(receipt.message);
  });

  const failure = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(ReceiptVerificationError);
      return error as ReceiptVerificationError;
    }
    throw new Error("verifyReceipt accepted it");
  };

  it("names the check that failed", () => {
    expect(failure(() => verifyReceipt({ ...job, input: { text: "other" } }, receipt, { signers })).check).toBe(
      "input-digest",
    );
    const result = { summary: "forged", output: {} };
    expect(failure(() => verifyReceipt({ ...job, result }, receipt, { signers })).check).toBe("result-digest");
    const mismatch = failure(() => verifyReceipt({ ...job, attempt: job.attempt + 1 }, receipt, { signers }));
    expect([mismatch.check, mismatch.field]).toEqual(["job-mismatch", "attempt"]);
    const forged = { ...receipt, message: { ...receipt.message, ownNode: !receipt.message.ownNode } };
    expect(failure(() => verifyReceipt(job, forged, { signers })).check).toBe("signature");
    const otherSigner = { ...receipt, signer: "0x000000000000000000000000000000000000dEaD" };
    expect(failure(() => verifyReceipt(job, otherSigner, { signers })).check).toBe("signature");
    const untrusted = { current: "0x000000000000000000000000000000000000dEaD", previous: [] };
    expect(failure(() => verifyReceipt(job, receipt, { signers: untrusted })).check).toBe("untrusted-signer");
  });
});

describe("GET /api/developers/jobs/:jobId/receipt refuses", () => {
  it("a job that has not completed: 409 JOB_NOT_COMPLETED", async () => {
    // No node of its own: it waits in routing (30 s) long past this check.
    const res = await dev.withKey(key, "/api/developers/jobs", {
      method: "POST",
      body: JSON.stringify({
        type: "developer_job",
        payload: { serviceId: "token-count", input: { text: "waits" }, placement: "own" },
      }),
    });
    const waiting = (await res.json()) as ExecutionJob;
    const refused = await expectError(
      await dev.withKey(key, `/api/developers/jobs/${waiting.jobId}/receipt`),
      409,
      "JOB_NOT_COMPLETED",
    );
    expect(refused.details).toEqual({ status: expect.stringMatching(/queued|routing/) });
  });

  it("another developer's job, or no job: 404 JOB_NOT_FOUND", async () => {
    const other = await signUpDeveloper(server.baseUrl);
    await expectError(await other.session(`/api/developers/jobs/${job.jobId}/receipt`), 404, "JOB_NOT_FOUND");
    await expectError(await dev.withKey(key, "/api/developers/jobs/not-a-job/receipt"), 404, "JOB_NOT_FOUND");
  });

  it("a key without jobs:read (403), and no credential (401)", async () => {
    const narrow = await dev.createApiKey(["services:execute"]);
    const refused = await expectError(
      await dev.withKey(narrow, `/api/developers/jobs/${job.jobId}/receipt`),
      403,
      "INSUFFICIENT_SCOPE",
    );
    expect(refused.details).toEqual({ requiredScope: "jobs:read" });
    await expectError(
      await fetch(`${server.baseUrl}/api/developers/jobs/${job.jobId}/receipt`),
      401,
      "INVALID_API_KEY",
    );
  });
});

describe("GET /api/receipts/signers", () => {
  it("is public and lists the current signer, with no previous one on a new deployment", async () => {
    expect(signers).toEqual({ current: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), previous: [] });
  });
});
