// Helpers for journeys that need a signed-in developer with jobs: sign in through the browser with the
// injected wallet, then use the page's own cookie to create the profile and an API key, and run jobs with
// that key exactly as the developer's code would.
import path from "node:path";
import { createCanvas, GlobalFonts } from "@napi-rs/canvas";
import { expect, type APIRequestContext, type Page } from "@playwright/test";
import * as png from "../lib/network/providers/testing/png";
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

/** Follows a link of the dashboard's navigation to its page (on a phone, from the header's Menu). */
export async function openFromNav(page: Page, name: string) {
  const menu = page.getByRole("button", { name: "Menu", exact: true });
  if (await menu.isVisible()) await menu.click();
  await page
    .getByRole("navigation", { name: "Dashboard", exact: true })
    .getByRole("link", { name, exact: true })
    .click();
  await expect(page.getByRole("heading", { level: 1, name, exact: true })).toBeVisible();
}

export async function runJob(
  request: APIRequestContext,
  apiKey: string,
  serviceId: string,
  input: Record<string, unknown>,
) {
  const response = await request.post(`/api/marketplace/services/${serviceId}/execute`, {
    headers: { "x-api-key": apiKey },
    data: { input },
  });
  expect(response.status(), await response.text()).toBe(202);
  return (await response.json()) as { jobId: string; status: string; creditCost: number };
}

/** A base64 PNG that passes every check at submission but cannot be decoded. */
export const pngWithCorruptImageData = (): string => png.pngWithCorruptImageData().toString("base64");

/** A large page of small text (base64 PNG): OCR of it keeps an execution node's slot busy for a while. */
export async function busyPageOfText(): Promise<string> {
  // geist exports only its next/font entry points; the TTF files sit beside them.
  const fontFile = path.join(
    path.dirname(require.resolve("geist/font/sans")),
    "fonts",
    "geist-sans",
    "Geist-Regular.ttf",
  );
  GlobalFonts.registerFromPath(fontFile, "Geist E2E");
  const canvas = createCanvas(2400, 3000);
  const context = canvas.getContext("2d");
  context.fillStyle = "#ffffff";
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.fillStyle = "#000000";
  context.font = '22px "Geist E2E"';
  for (let line = 0; line < 110; line++) {
    context.fillText(
      `${line + 1}. The quick brown fox jumps over the lazy dog; pack my box with five dozen liquor jugs, twice.`,
      30,
      40 + line * 26,
    );
  }
  return (await canvas.encode("png")).toString("base64");
}
