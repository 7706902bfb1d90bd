// API keys as the dashboard manages them (wallet session): create, change, list, rotate, with the spend
// fields of CONTRACT §11.
import { expect } from "vitest";
import { allScopes, type Developer } from "./developer";

export interface KeyView {
  keyId: string;
  name: string;
  scopes: string[];
  prefix: string;
  revokedAt: string | null;
  creditLimit: number | null;
  creditLimitReset: "daily" | "weekly" | "monthly" | null;
  creditLimitRemaining: number | null;
  usage: { daily: number; weekly: number; monthly: number; total: number };
}

/** POST /api/developers/keys with every scope unless `body` says otherwise; expects 201. */
export async function createKey(
  dev: Developer,
  body: Record<string, unknown> = {},
): Promise<KeyView & { key: string }> {
  const res = await dev.session("/api/developers/keys", {
    method: "POST",
    body: JSON.stringify({ name: "spend test", scopes: allScopes, ...body }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
}

export const patchKey = (dev: Developer, keyId: string, body: unknown, init: RequestInit = {}) =>
  dev.session(`/api/developers/keys/${keyId}`, { method: "PATCH", body: JSON.stringify(body), ...init });

/** The key as GET /api/developers/keys lists it. */
export async function readKey(dev: Developer, keyId: string): Promise<KeyView> {
  const res = await dev.session("/api/developers/keys");
  expect(res.status).toBe(200);
  const key = ((await res.json()) as KeyView[]).find((k) => k.keyId === keyId);
  if (!key) throw new Error(`key ${keyId} is not listed`);
  return key;
}
