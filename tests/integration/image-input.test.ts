import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUpDeveloper, type Developer } from "../support/developer";
import { pngHeaderClaiming } from "@/lib/network/providers/testing/png";
import { execute, submit } from "../support/jobs";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
let dev: Developer;
let key: string;
beforeAll(async () => {
  // No nodes: jobs stay queued, only what submission and reads do is under test.
  server = await startTestServer({ embeddedNodes: 0, env: { STARTER_CREDITS: "1000" } });
  dev = await signUpDeveloper(server.baseUrl);
  key = await dev.createApiKey();
});
afterAll(() => server.close());

const onePixelPng = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/** A PNG whose header claims width × height: a few bytes that would decode to a huge bitmap. */
const pngClaiming = (width: number, height: number): string => pngHeaderClaiming(width, height).toString("base64");

async function expectRefused(image: string, reason: RegExp) {
  const res = await execute(dev, key, "image-ocr", { image });
  expect(res.status).toBe(422);
  const body = (await res.json()) as {
    error: { code: string; details: { issues: { path: string; message: string }[] } };
  };
  expect(body.error.code).toBe("INVALID_SERVICE_INPUT");
  expect(body.error.details.issues[0]).toMatchObject({ path: "image", message: expect.stringMatching(reason) });
}

describe("image-ocr input is checked at submission", () => {
  it("refuses what is not base64, not PNG/JPEG, unreadable, or over the pixel cap, charging nothing", async () => {
    const before = (await (await dev.withKey(key, "/api/credits/balance")).json()).balance;
    await expectRefused("not base64 at all!", /base64/);
    await expectRefused(Buffer.from("GIF89a and then some").toString("base64"), /neither PNG nor JPEG/);
    await expectRefused(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]).toString("base64"),
      /truncated or corrupt/,
    );
    await expectRefused(pngClaiming(20_000, 20_000), /megapixels/);
    await expectRefused(`data:image/gif;base64,${onePixelPng}`, /Only PNG and JPEG/);
    expect((await (await dev.withKey(key, "/api/credits/balance")).json()).balance).toBe(before);
  });

  it("accepts a real PNG, plain or as a data: URL", async () => {
    expect((await execute(dev, key, "image-ocr", { image: onePixelPng })).status).toBe(202);
    expect((await execute(dev, key, "image-ocr", { image: `data:image/png;base64,${onePixelPng}` })).status).toBe(202);
  });
});

describe("job lists carry short inputs", () => {
  it("cuts long input strings in the list and flags them; the job's own route has the full input", async () => {
    const long = "All work and no play. ".repeat(900).trim();
    const big = await submit(dev, key, "text-sentiment", { text: long });
    const small = await submit(dev, key, "token-count", { text: "hello", model: "gpt-4o" });
    const res = await dev.withKey(key, "/api/developers/jobs?limit=100");
    const list = (await res.json()) as {
      data: { jobId: string; input: Record<string, unknown>; inputTruncated: boolean }[];
    };
    const listedBig = list.data.find((j) => j.jobId === big.jobId);
    const listedSmall = list.data.find((j) => j.jobId === small.jobId);
    expect(listedBig).toMatchObject({ inputTruncated: true, input: { text: long.slice(0, 200) } });
    expect(listedSmall).toMatchObject({ inputTruncated: false, input: { text: "hello", model: "gpt-4o" } });
    const full = await (await dev.withKey(key, `/api/developers/jobs/${big.jobId}`)).json();
    expect(full.input.text).toBe(long);
  });

  it("a page of image jobs stays small", async () => {
    const image = `data:image/png;base64,${pngClaiming(10, 10)}${"A".repeat(200_000)}`;
    // Its bytes past the header are not read at submission; what matters here is the size of the list.
    const submitted = await execute(dev, key, "image-ocr", { image });
    expect(submitted.status).toBe(202);
    const res = await dev.withKey(key, "/api/developers/jobs?serviceId=image-ocr&limit=100");
    expect((await res.text()).length).toBeLessThan(10_000);
  });
});
