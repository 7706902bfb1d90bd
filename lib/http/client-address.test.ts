// The per-IP limits count the socket's address, which a client cannot choose by sending a header.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientAddressOf } from "./client-address";
import { edgeServer, serverEdge } from "./server-edge";

let server: Server;
let baseUrl: string;
beforeAll(async () => {
  // The server's edge before a handler that sees only the headers, as a route handler does.
  server = edgeServer(
    serverEdge((req, res) => {
      const headers = new Headers(Object.entries(req.headers).map(([k, v]) => [k, String(v)] as [string, string]));
      res.end(clientAddressOf(new Request("http://127.0.0.1/", { headers })));
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("the client address", () => {
  it("is the socket's address, whatever the client sends as X-Forwarded-For or as our own header", async () => {
    const res = await fetch(baseUrl, {
      headers: { "x-forwarded-for": "203.0.113.7", "x-en-socket-address": "198.51.100.9" },
    });
    expect(await res.text()).toBe("127.0.0.1");
  });
});
