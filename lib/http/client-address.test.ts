// The per-IP limits count the socket's address, which a client cannot choose by sending a header.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientAddressOf, stampSocketAddresses } from "./client-address";

let server: Server;
let baseUrl: string;
beforeAll(async () => {
  stampSocketAddresses();
  // A plain Node server, as `next start` runs one: the handler sees only the headers, as a route handler does.
  server = createServer((req, res) => {
    const headers = new Headers(Object.entries(req.headers).map(([k, v]) => [k, String(v)] as [string, string]));
    res.end(clientAddressOf(new Request("http://127.0.0.1/", { headers })));
  });
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
