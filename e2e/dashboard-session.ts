// Helpers for journeys that need a signed-in developer with jobs: sign in through the browser with the
// injected wallet, then use the page's own cookie to create the profile and an API key, and run jobs with
// that key exactly as the developer's code would.
import path from "node:path";
import { deflateSync } from "node:zlib";
import { createCanvas, GlobalFonts } from "@napi-rs/canvas";
import { expect, type APIRequestContext, type Page } from "@playwright/test";
import { installTestWallet, testWalletName } from "./test-wallet";

export interface Developer {
  page: Page;
  /** An API key with services:execute, jobs:read, telemetry:read. */
  apiKey: string;
}

export async function signInNewDeveloper(page: Page, baseURL: string, name = "Grace Hopper"): Promise<Developer> {
  await installTestWallet(page);
  await page.goto("/sign-in");
  await page.getByRole("button", { name: testWalletName }).click();
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  // Session mutations must carry the app's Origin, as the browser's own fetches do.
  const headers = { origin: baseURL };
  const profile = await page.request.post("/api/developers", { headers, data: { name } });
  expect(profile.status(), await profile.text()).toBe(201);
  const key = await page.request.post("/api/developers/keys", {
    headers,
    data: { name: "e2e jobs", scopes: ["services:execute", "jobs:read", "telemetry:read"] },
  });
  expect(key.status(), await key.text()).toBe(201);
  return { page, apiKey: ((await key.json()) as { key: string }).key };
}

export async function runJob(request: APIRequestContext, apiKey: string, serviceId: string, input: Record<string, unknown>) {
  const response = await request.post(`/api/marketplace/services/${serviceId}/execute`, {
    headers: { "x-api-key": apiKey },
    data: { input },
  });
  expect(response.status(), await response.text()).toBe(202);
  return (await response.json()) as { jobId: string; status: string; creditCost: number };
}

// ── A PNG that passes every check at submission but cannot be decoded ────────────────────────────────

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** 64×32 RGB: valid signature, IHDR and chunk CRCs; the IDAT's compressed stream is cut off halfway. */
export function pngWithCorruptImageData(): string {
  const width = 64;
  const height = 32;
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc((width * 3 + 1) * height, 0x7f);
  const compressed = deflateSync(rows);
  const broken = Buffer.concat([compressed.subarray(0, Math.floor(compressed.length / 2)), Buffer.from([0xde, 0xad, 0xbe, 0xef])]);
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", broken),
    chunk("IEND", Buffer.alloc(0)),
  ]);
  return png.toString("base64");
}

/** A large page of small text (base64 PNG): OCR of it keeps an execution node's slot busy for a while. */
export async function busyPageOfText(): Promise<string> {
  // geist exports only its next/font entry points; the TTF files sit beside them.
  const fontFile = path.join(path.dirname(require.resolve("geist/font/sans")), "fonts", "geist-sans", "Geist-Regular.ttf");
  GlobalFonts.registerFromPath(fontFile, "Geist E2E");
  const canvas = createCanvas(2400, 3000);
  const context = canvas.getContext("2d");
  context.fillStyle = "#ffffff";
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.fillStyle = "#000000";
  context.font = '22px "Geist E2E"';
  for (let line = 0; line < 110; line++) {
    context.fillText(`${line + 1}. The quick brown fox jumps over the lazy dog; pack my box with five dozen liquor jugs, twice.`, 30, 40 + line * 26);
  }
  return (await canvas.encode("png")).toString("base64");
}
