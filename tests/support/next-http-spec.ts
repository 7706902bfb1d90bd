// What the real server (server.mjs: the server's edge, then Next.js) does around the route handlers (HEAD,
// OPTIONS, 405, trailing slashes, escaped and malformed path segments, compression, rate limits over HTTP):
// one specification, run against the real server (tests/next-start) and against the test router (tests/integration/http-like-next.test.ts), so the
// two cannot drift apart.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUpDeveloper, type Developer } from "./developer";
import { expectError } from "./expect-error";
import { rawRequest } from "./raw-request";

export interface ServerUnderTest {
  baseUrl: string;
  close(): Promise<void>;
}

/** Low enough to reach in a test, high enough for one job's submit → stream → job → telemetry per key. */
export const ratePerMinute = 12;

export function describeHttpAsNextServesIt(
  name: string,
  start: (env: Record<string, string>) => Promise<ServerUnderTest>,
  options: { compression?: boolean } = {},
) {
  describe(`${name}: HTTP as Next serves it`, () => {
    let server: ServerUnderTest;
    let dev: Developer;
    let key: string;
    beforeAll(async () => {
      server = await start({ RATE_LIMIT_PER_MINUTE: String(ratePerMinute) });
      dev = await signUpDeveloper(server.baseUrl);
      key = await dev.createApiKey();
    }, 180_000);
    afterAll(() => server?.close());

    const request = (path: string, init: RequestInit = {}) =>
      fetch(`${server.baseUrl}${path}`, { redirect: "manual", ...init });

    it("answers HEAD like GET without a body", async () => {
      for (const [path, status] of [
        ["/api/health", 200],
        ["/api/marketplace/services", 200],
        ["/api/developers/jobs", 401],
        ["/api/no-such-route", 404],
      ] as const) {
        const [head, get] = [await request(path, { method: "HEAD" }), await request(path)];
        expect([path, head.status]).toEqual([path, status]);
        expect(head.status).toBe(get.status);
        expect(head.headers.get("content-type")).toBe(get.headers.get("content-type"));
        expect(await head.text()).toBe("");
      }
    });

    it("answers OPTIONS with 204 and the route's methods in Allow", async () => {
      for (const [path, allow] of [
        ["/api/health", "GET, HEAD, OPTIONS"],
        ["/api/developers/jobs", "GET, HEAD, OPTIONS, POST"],
        ["/api/marketplace/services/token-count/execute", "OPTIONS, POST"],
      ] as const) {
        const res = await request(path, { method: "OPTIONS" });
        expect([path, res.status, res.headers.get("allow")]).toEqual([path, 204, allow]);
      }
    });

    it("answers a method the route does not have with 405", async () => {
      expect((await request("/api/health", { method: "DELETE" })).status).toBe(405);
      expect((await request("/api/developers/jobs", { method: "PUT" })).status).toBe(405);
    });

    // Next's own 405 has an empty body: proxy.ts answers first, in the contract's error envelope.
    it("answers 405 in the contract's error envelope", async () => {
      await expectError(await request("/api/health", { method: "DELETE" }), 405, "METHOD_NOT_ALLOWED");
    });

    // Next.js's router fails on a method outside the web's standard set (TRACE: a 500 in plain text and a stack
    // in the log; PROPFIND: an empty 400), Node closes a CONNECT with no answer, and a method its parser does not
    // know (BREW) gets Node's bare 400.
    it("answers TRACE, CONNECT, PROPFIND and any other method no route has with 405 in the envelope, everywhere", async () => {
      for (const method of ["TRACE", "CONNECT", "PROPFIND", "MKCOL", "BREW"]) {
        for (const [path, allow] of [
          ["/api/health", "GET, HEAD, OPTIONS"],
          ["/api/marketplace/services/token-count/execute", "OPTIONS, POST"],
          ["/api/developers/jobs", "GET, HEAD, OPTIONS, POST"],
          ["/api/no-such-route", "OPTIONS"],
          ["/", "GET, HEAD"],
        ] as const) {
          const res = await rawRequest(server.baseUrl, method, path);
          const allowed = res.headers.get("allow")?.split(", ").sort().join(", ");
          expect([method, path, res.status, allowed]).toEqual([method, path, 405, allow]);
          await expectError(res, 405, "METHOD_NOT_ALLOWED");
        }
      }
    });

    // server.mjs's listener is the one way in: a request that reached Next.js's handler without the edge would
    // be answered by whatever part of Next.js serves its path (a page, a static file, the 404 page).
    it("refuses a method no route has on every kind of path before Next.js sees it: pages, static files, unknown paths", async () => {
      for (const path of [
        "/sign-in",
        "/favicon.ico",
        "/_next/static/chunks/none.js",
        "/no-such-page",
        "/api/credits/balance",
      ]) {
        for (const method of ["TRACE", "PROPFIND"]) {
          const res = await rawRequest(server.baseUrl, method, path);
          expect([method, path, res.status]).toEqual([method, path, 405]);
          await expectError(res, 405, "METHOD_NOT_ALLOWED");
        }
      }
    });

    // Node's fetch (the client library's transport) sends a large body while the answer arrives: closing the
    // connection under it made fetch fail with EPIPE instead of reading the 401 or the 413.
    it("answers a body over the limit, or a wrong credential, while fetch is still sending the body", async () => {
      const oversized = JSON.stringify({ serviceId: "token-count", input: { text: "x".repeat(12_000_000) } });
      // Declared with Content-Length and sent at once, or streamed (chunked) a megabyte at a time: either way the
      // answer comes while the client is still sending.
      const bodies = [
        () => oversized,
        () => {
          let at = 0;
          return new ReadableStream<Uint8Array>({
            async pull(controller) {
              if (at >= oversized.length) return controller.close();
              controller.enqueue(new TextEncoder().encode(oversized.slice(at, (at += 1_000_000))));
              await new Promise((resolve) => setTimeout(resolve, 5));
            },
          });
        },
      ];
      const json = { "content-type": "application/json" };
      for (const [path, headers, status, code] of [
        // The submissions (served beside Next.js's router by the server's edge) …
        ["/api/marketplace/services/token-count/execute", { "x-api-key": "en_live_wrong" }, 401, "INVALID_API_KEY"],
        ["/api/marketplace/services/token-count/execute", { "x-api-key": key }, 413, "PAYLOAD_TOO_LARGE"],
        ["/api/developers/jobs", { "x-api-key": key }, 413, "PAYLOAD_TOO_LARGE"],
        // … and routes Next.js's router serves.
        ["/api/developers/webhooks", { "x-api-key": "en_live_wrong" }, 401, "INVALID_API_KEY"],
        ["/api/developers/webhooks", { "x-api-key": key }, 413, "PAYLOAD_TOO_LARGE"],
        ["/api/nodes/claim", { authorization: "Bearer node_wrong" }, 401, "INVALID_NODE_TOKEN"],
      ] as const) {
        for (const body of bodies) {
          const res = await request(path, {
            method: "POST",
            headers: { ...json, ...headers },
            body: body(),
            // @ts-expect-error Node's fetch needs duplex for a streamed request body.
            duplex: "half",
          }).catch((error: Error) => error);
          expect(res instanceof Response ? [path, res.status] : [path, String(res.cause ?? res)]).toEqual([
            path,
            status,
          ]);
          await expectError(res as Response, status, code);
        }
      }
      // The connection stays usable: the next request on it is answered as usual.
      expect((await request("/api/health/live")).status).toBe(200);
    });

    it("redirects a trailing slash to the canonical path with 308, keeping the query", async () => {
      const res = await request("/api/marketplace/services/?limit=1");
      expect(res.status).toBe(308);
      expect(res.headers.get("location")).toBe("/api/marketplace/services?limit=1");
      expect((await request("/api/developers/jobs/abc/")).headers.get("location")).toBe("/api/developers/jobs/abc");
    });

    it("decodes an escaped path segment before the route sees it (%2F is part of the id, not a separator)", async () => {
      await expectError(await dev.withKey(key, "/api/developers/jobs/a%2Fb"), 404, "JOB_NOT_FOUND");
      await expectError(
        await dev.withKey(key, "/api/marketplace/services/token%2Dcount/execute", {
          method: "POST",
          body: JSON.stringify({ input: {} }),
        }),
        422,
        "INVALID_SERVICE_INPUT",
      );
    });

    // Next's router answers a malformed percent-encoding with a plain-text 500: proxy.ts answers first.
    it("answers a malformed percent-encoding in the path with a 4xx in the error envelope", async () => {
      for (const path of ["/api/developers/jobs/%E0%A4%A", "/api/developers/jobs/%zz", "/api/%zz"]) {
        const res = await dev.withKey(key, path);
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        expect((await res.json()).error.requestId).toBe(res.headers.get("x-request-id"));
      }
    });

    it.runIf(options.compression)(
      "compresses JSON for a client that accepts gzip and sends no X-Powered-By",
      async () => {
        const res = await request("/api/openapi.json", { headers: { "accept-encoding": "gzip" } });
        expect(res.status).toBe(200);
        expect(res.headers.get("content-encoding")).toBe("gzip");
        expect(res.headers.get("x-powered-by")).toBeNull();
        expect((await res.json()).openapi).toEqual(expect.any(String));
      },
    );

    // Under 1 KiB, gzip costs the server more CPU than it saves on the wire: most answers (a submission's
    // 202, a node's report, liveness, an error) are that small. (The test router does not compress at all.)
    it("sends a JSON answer under 1 KiB as it is, keeping the route's own caching", async () => {
      const gzip = { "accept-encoding": "gzip" };
      const live = await request("/api/health/live", { headers: gzip });
      expect(live.status).toBe(200);
      expect(live.headers.get("content-encoding")).toBeNull();
      expect(live.headers.get("cache-control")).toBe("no-store, no-transform");
      expect(await live.json()).toEqual({ status: "ok" });
      const refused = await request("/api/developers/jobs", { headers: { ...gzip, "x-api-key": "en_live_not-a-key" } });
      expect(refused.headers.get("content-encoding")).toBeNull();
      expect(refused.headers.get("cache-control")).toBe("no-transform");
      await expectError(refused, 401, "INVALID_API_KEY");
    });

    it("limits an API key's requests: 429 RATE_LIMITED with Retry-After over HTTP", async () => {
      const limited = await dev.createApiKey();
      for (let i = 0; i < ratePerMinute; i++)
        expect((await dev.withKey(limited, "/api/credits/balance")).status).toBe(200);
      const res = await dev.withKey(limited, "/api/credits/balance");
      await expectError(res, 429, "RATE_LIMITED");
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      // Another key of the same developer is not affected.
      expect((await dev.withKey(key, "/api/credits/balance")).status).toBe(200);
    });
  });
}
