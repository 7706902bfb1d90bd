// The routes the server answers beside Next.js's router: matched only where Next.js's router would send the
// request to the same handler, and served by that handler over the same server; everything else goes on.
import { request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeclaredHandler } from "./api";
import { directRouteTable } from "./direct-routes";
import { edgeServer, serverEdge } from "./server-edge";
import type { RouteSpec } from "./routes";

/** A declared handler that says what it was given. */
const echo = (method: RouteSpec["method"], routePath: `/api/${string}`) =>
  Object.assign(
    async (req: Request, ctx?: { params: Promise<Record<string, string>> }) =>
      Response.json(
        { params: await ctx?.params, path: new URL(req.url).href, body: await req.text() },
        {
          headers: [
            ["set-cookie", "a=1"],
            ["set-cookie", "b=2"],
          ],
        },
      ),
    { route: { method, path: routePath } as RouteSpec },
  ) as DeclaredHandler;

describe("which requests a direct route takes", () => {
  const poke = echo("post", "/api/things/{id}/poke");
  const match = directRouteTable([poke]);

  it("takes its method and path, with each parameter decoded after the path is split", () => {
    expect(match("POST", "/api/things/a%2Fb%20c/poke?x=1")).toEqual({ handler: poke, params: { id: "a/b c" } });
  });

  it.each([
    ["another method", "GET", "/api/things/a/poke"],
    ["a trailing slash (Next.js redirects it)", "POST", "/api/things/a/poke/"],
    ["an empty parameter", "POST", "/api/things//poke"],
    ["a dot segment", "POST", "/api/things/../poke"],
    ["a malformed escape (Next.js answers it in the envelope)", "POST", "/api/things/%E0%A4%A/poke"],
    ["an escaped fixed segment", "POST", "/api/%74hings/a/poke"],
    ["an absolute URL", "POST", "http://elsewhere/api/things/a/poke"],
    ["a longer path", "POST", "/api/things/a/poke/more"],
  ])("leaves %s to Next.js", (_what, method, url) => {
    expect(match(method, url)).toBeUndefined();
  });
});

describe("a server once direct routes are served", () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    // Next.js's stand-in: what the edge passes on is answered 299.
    server = edgeServer(
      serverEdge((_req, res) => res.writeHead(299).end("next"), [echo("post", "/api/things/{id}/poke")]),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("answers a direct route with its handler: parameters, body, every Set-Cookie, and the length of the body", async () => {
    const res = await fetch(`${base}/api/things/a%2Fb/poke?q=1`, {
      method: "POST",
      body: "hello",
      headers: { host: "attacker.example" },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      params: { id: "a/b" },
      // The Host header does not choose the origin the handler sees.
      path: "http://localhost/api/things/a%2Fb/poke?q=1",
      body: "hello",
    });
    expect(res.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(res.headers.get("content-length")).not.toBeNull();
  });

  it("passes every other request to the server's own listener", async () => {
    for (const [method, url] of [
      ["GET", "/api/things/a/poke"],
      ["POST", "/api/things/a/poke/"],
      ["POST", "/api/other"],
    ]) {
      const res = await fetch(`${base}${url}`, { method, body: method === "POST" ? "x" : undefined });
      expect([res.status, await res.text()], `${method} ${url}`).toEqual([299, "next"]);
    }
  });

  it("compresses as Next.js does: every JSON answer varies by Accept-Encoding, gzipped from 1 KiB for a client that takes it", async () => {
    const large = "x".repeat(2_000);
    const gzipped = await post({ path: "/api/things/a/poke" }, large, { "accept-encoding": "gzip, deflate" });
    expect(gzipped.headers).toMatchObject({
      "content-encoding": "gzip",
      vary: "Accept-Encoding",
      "content-length": String(gzipped.body.byteLength),
    });
    expect(JSON.parse(gunzipSync(gzipped.body).toString()).body).toBe(large);

    for (const [what, body, acceptEncoding] of [
      ["no Accept-Encoding", large, undefined],
      ["gzip refused", large, "gzip;q=0, deflate"],
      ["under 1 KiB", "small", "gzip"],
    ] as const) {
      const answer = await post(
        { path: "/api/things/a/poke" },
        body,
        acceptEncoding ? { "accept-encoding": acceptEncoding } : {},
      );
      expect(answer.headers["content-encoding"], what).toBeUndefined();
      expect(answer.headers.vary, what).toBe("Accept-Encoding");
      expect(JSON.parse(answer.body.toString()).body, what).toBe(body);
    }
  });

  /** A POST over node:http, which sends only the headers given and decodes nothing. */
  function post(
    target: { path: string },
    body: string,
    headers: Record<string, string> = {},
  ): Promise<{ status?: number; headers: IncomingHttpHeaders; body: Buffer }> {
    const { port, hostname } = new URL(base);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: hostname,
          port,
          path: target.path,
          method: "POST",
          headers,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  }
});
