import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { proxy } from "@/proxy";

const at = (path: string, method = "GET") => proxy(new NextRequest(`http://127.0.0.1:3000${path}`, { method }));

describe("proxy: what the framework would answer without the envelope", () => {
  it("405 METHOD_NOT_ALLOWED in the envelope with x-request-id and Allow, for a method a route lacks", async () => {
    const res = at("/api/developers/keys", "PUT");
    expect(res.status).toBe(405);
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    expect(res.headers.get("allow")).toBe("POST, GET, HEAD, OPTIONS");
    expect((await res.json()).error).toMatchObject({
      code: "METHOD_NOT_ALLOWED",
      details: { allowed: ["POST", "GET", "HEAD", "OPTIONS"] },
    });
    expect(at("/api/developers/jobs/0b0e/logs", "DELETE").status).toBe(405);
    expect(at("/api/developers/keys", "POST").status).toBe(200); // passed on to the route
  });

  it("404 NOT_FOUND in the envelope for a path that is not percent-encoded UTF-8", async () => {
    for (const path of ["/api/developers/jobs/%ED%A0%80/logs", "/api/developers/keys/%ED%BF%BF/rotate"]) {
      const res = at(path, "POST");
      expect(res.status).toBe(404);
      expect((await res.json()).error.code).toBe("NOT_FOUND");
    }
  });
});

describe("proxy: security headers on pages and API responses", () => {
  it("a strict CSP with a fresh nonce, no frames, nosniff and a referrer policy", () => {
    const page = at("/sign-in");
    const api = at("/api/health/live");
    for (const res of [page, api, at("/api/developers/keys", "PUT")]) {
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("object-src 'none'");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    }
    expect(page.headers.get("content-security-policy")).not.toBe(at("/sign-in").headers.get("content-security-policy"));
  });
});
