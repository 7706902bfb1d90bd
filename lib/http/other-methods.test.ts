import { describe, expect, it } from "vitest";
import { allowedMethodsAt, DELETE, GET, OPTIONS, PUT } from "./other-methods";

const request = (path: string, method: string) => new Request(`http://127.0.0.1:3000${path}`, { method });

describe("an API route's answer to a method its file does not export", () => {
  it("405 METHOD_NOT_ALLOWED in the envelope, with x-request-id and the path's methods in Allow", async () => {
    const res = await PUT(request("/api/developers/keys", "PUT"));
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST, GET, HEAD, OPTIONS");
    const { error } = await res.json();
    expect(error).toMatchObject({
      code: "METHOD_NOT_ALLOWED",
      details: { allowed: ["POST", "GET", "HEAD", "OPTIONS"] },
    });
    expect(error.requestId).toBe(res.headers.get("x-request-id"));
    expect((await DELETE(request("/api/developers/jobs/0b0e/logs", "DELETE"))).status).toBe(405);
    expect((await GET(request("/api/marketplace/services/token-count/execute", "GET"))).headers.get("allow")).toBe(
      "POST, OPTIONS",
    );
  });

  it("OPTIONS: 204 with the path's methods in Allow, sorted as Next.js sorts them", async () => {
    const res = await OPTIONS(request("/api/developers/jobs", "OPTIONS"));
    expect(res.status).toBe(204);
    expect(res.headers.get("allow")).toBe("GET, HEAD, OPTIONS, POST");
  });

  it("carries the API's security headers: a CSP that allows nothing, no frames, nosniff", async () => {
    for (const res of [await PUT(request("/api/health", "PUT")), await OPTIONS(request("/api/health", "OPTIONS"))]) {
      expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    }
  });

  it("reads the methods from the route declarations, parameters included", () => {
    expect(allowedMethodsAt("/api/developers/jobs/any-id")).toEqual(["GET", "HEAD", "OPTIONS"]);
    expect(allowedMethodsAt("/api/developers/jobs/any-id/cancel")).toEqual(["POST", "OPTIONS"]);
  });
});
