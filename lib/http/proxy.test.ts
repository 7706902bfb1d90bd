import { unstable_doesMiddlewareMatch } from "next/experimental/testing/server";
import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { config, proxy } from "@/proxy";

const at = (path: string, method = "GET") => proxy(new NextRequest(`http://127.0.0.1:3000${path}`, { method }));
const runsFor = (path: string) => unstable_doesMiddlewareMatch({ config, url: `http://127.0.0.1:3000${path}` });

describe("proxy: where it runs", () => {
  it("runs before pages, not before the API (whose every request would pay for it) nor static files", () => {
    expect(runsFor("/")).toBe(true);
    expect(runsFor("/sign-in")).toBe(true);
    expect(runsFor("/jobs/0b0e")).toBe(true);
    expect(runsFor("/api/health/live")).toBe(false);
    expect(runsFor("/api/marketplace/services/token-count/execute")).toBe(false);
    expect(runsFor("/_next/static/chunks/app.js")).toBe(false);
  });

  it("runs before an API path with a percent-escape, the one the router would answer with a plain 500", () => {
    expect(runsFor("/api/developers/jobs/%E0%A4%A")).toBe(true);
    expect(runsFor("/api/%zz")).toBe(true);
  });
});

describe("proxy: the API answer the framework would otherwise give without the envelope", () => {
  it("404 NOT_FOUND in the envelope for a path that is not percent-encoded UTF-8, with the API's headers", async () => {
    for (const path of ["/api/developers/jobs/%ED%A0%80/logs", "/api/developers/keys/%ED%BF%BF/rotate", "/api/%zz"]) {
      const res = at(path, "POST");
      expect(res.status).toBe(404);
      const body = await res.json();
      expect(body.error.code).toBe("NOT_FOUND");
      expect(body.error.requestId).toBe(res.headers.get("x-request-id"));
      expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
    }
  });

  // The test router (tests/support/test-server.ts) calls the proxy on every path, counting on this.
  it("passes any other API request on to its route untouched, escaped or not", () => {
    for (const path of ["/api/developers/jobs/a%2Fb", "/api/health/live"]) {
      const res = at(path, "POST");
      expect(res.headers.get("x-middleware-next")).toBe("1");
      expect([...res.headers.keys()]).toEqual(["x-middleware-next"]);
    }
  });
});

describe("proxy: a page's security headers", () => {
  it("a strict CSP with a fresh nonce per request, no frames, nosniff and a referrer policy", () => {
    const page = at("/sign-in");
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(page.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(csp).not.toBe(at("/sign-in").headers.get("content-security-policy"));
  });
});

describe("proxy: the page a request asked for, for sign-in to return to", () => {
  const forwarded = (res: Response) => res.headers.get("x-middleware-request-x-request-path");

  it("hands server components the path and query, without the router's _rsc parameter", () => {
    expect(forwarded(at("/jobs/0b0e"))).toBe("/jobs/0b0e");
    expect(forwarded(at("/jobs?status=failed&page=2"))).toBe("/jobs?status=failed&page=2");
    expect(forwarded(at("/jobs?status=failed&_rsc=1x2y3"))).toBe("/jobs?status=failed");
  });

  it("never passes on a value the visitor sent", () => {
    const req = new NextRequest("http://127.0.0.1:3000/keys", { headers: { "x-request-path": "//evil.example" } });
    expect(forwarded(proxy(req))).toBe("/keys");
  });
});
