import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postJson } from "./jobs";

// A stand-in for the server: answers every POST with what it received, and counts the connections it accepted.
let server: http.Server;
let baseUrl = "";
let connections = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      res.writeHead(202, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          key: req.headers["x-api-key"],
          type: req.headers["content-type"],
          body: JSON.parse(Buffer.concat(chunks).toString()),
        }),
      );
    });
  });
  server.on("connection", () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("the load generator's client", () => {
  it("sends JSON with the caller's headers and hands back the status and the parsed answer", async () => {
    const answer = await postJson(
      `${baseUrl}/execute`,
      { "x-api-key": "sk_test" },
      JSON.stringify({ input: { text: "héllo" } }),
    );
    expect(answer).toEqual({
      status: 202,
      body: { key: "sk_test", type: "application/json", body: { input: { text: "héllo" } } },
    });
  });

  it("keeps its connection alive: submissions one after another open no new connection", async () => {
    await postJson(`${baseUrl}/execute`, {}, "{}");
    const before = connections;
    for (let i = 0; i < 5; i++) await postJson(`${baseUrl}/execute`, {}, JSON.stringify({ i }));
    expect(connections).toBe(before);
  });
});
