// The server's edge (lib/http/server-edge.ts) before a listener that answers at once, without reading the
// body: the client still sending gets the answer, and a body without end is cut off at the bound. Every
// request meets the request hooks first (lib/http/request-hooks.ts).
import type { Server, ServerResponse } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { limits } from "@/lib/limits";
import { rawRequest } from "@/tests/support/raw-request";
import type { DeclaredHandler } from "./api";
import { onEveryRequest } from "./request-hooks";
import { edgeServer, serverEdge } from "./server-edge";

/** Resolves once the socket takes more (or is closed). */
const writable = (socket: Socket) =>
  new Promise<void>((resolve) => {
    const done = () => {
      socket.off("drain", done).off("close", done);
      resolve();
    };
    socket.on("drain", done).on("close", done);
  });

/**
 * On one connection: a POST of 12 MB (declared with Content-Length, sent at once), then a GET; what the server
 * answered once `enough` says so, or after 5 s.
 */
async function answersToBodyThenGet(port: number, enough: (answers: string) => boolean): Promise<string> {
  const socket = connect(port, "127.0.0.1");
  let answers = "";
  socket.on("data", (chunk: Buffer) => (answers += chunk.toString("latin1")));
  const body = Buffer.alloc(12_000_000, 120);
  socket.write(`POST / HTTP/1.1\r\nhost: x\r\ncontent-length: ${body.length}\r\n\r\n`);
  socket.write(body);
  socket.write("GET / HTTP/1.1\r\nhost: x\r\n\r\n");
  const deadline = Date.now() + 5_000;
  while (!enough(answers) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  socket.destroy();
  return answers;
}

describe("a server's edge", () => {
  let server: Server;
  let port: number;
  const tooLarge = (res: ServerResponse) => res.writeHead(413, { "content-type": "application/json" }).end("{}");

  beforeAll(async () => {
    // As a route that reads a body up to its limit: it takes the first chunk, stops reading and answers.
    server = edgeServer(
      serverEdge((req, res) => {
        if (!req.headers["content-length"]) return tooLarge(res);
        req.once("data", () => {
          req.pause();
          tooLarge(res);
        });
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it("reads the rest of a body after an answer that stopped reading it, and answers the next request on the connection", async () => {
    const answers = await answersToBodyThenGet(port, (got) => (got.match(/HTTP\/1\.1 413 /g) ?? []).length >= 2);
    expect(answers.match(/HTTP\/1\.1 413 /g)).toHaveLength(2);
  });

  it("lets fetch finish sending a body its answer did not read, and keeps the connection for the next request", async () => {
    const body = "x".repeat(12_000_000);
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body });
      expect(res.status).toBe(413);
      await res.text();
    }
  });

  it("closes the connection once an unread body passes the drain's bound of bytes", async () => {
    const socket = connect(port, "127.0.0.1");
    socket.on("error", () => undefined);
    let answer = "";
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
    socket.write("POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 1000000000\r\n\r\n");
    const chunk = Buffer.alloc(1024 * 1024, 120);
    let sent = 0;
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    let open = true;
    void closed.then(() => (open = false));
    while (open && sent < 4 * limits.unreadBodyDrainBytes) {
      if (!socket.write(chunk)) await writable(socket);
      sent += chunk.length;
    }
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(sent).toBeGreaterThan(limits.unreadBodyDrainBytes);
    expect(sent).toBeLessThan(2 * limits.unreadBodyDrainBytes);
  });

  // Node's default closes a connection idle 5 s (6 with its buffer): a client or proxy that keeps connections
  // longer (Go's 90 s, a load balancer's 60 s) would send its next request into a closing socket.
  it("keeps an idle keep-alive connection open past Node's default, and says for how long", async () => {
    const socket = connect(port, "127.0.0.1");
    let answers = "";
    socket.on("data", (chunk: Buffer) => (answers += chunk.toString("latin1")));
    const closed = new Promise<string>((resolve) => socket.once("close", () => resolve("closed")));
    const answered = async (count: number) => {
      while ((answers.match(/HTTP\/1\.1 413 /g) ?? []).length < count)
        await new Promise((resolve) => setTimeout(resolve, 20));
    };
    socket.write("GET / HTTP/1.1\r\nhost: x\r\n\r\n");
    await answered(1);
    expect(answers).toMatch(new RegExp(`\r\nkeep-alive: timeout=${limits.idleConnectionMs / 1000}\r\n`, "i"));
    const idle = await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 6_500, "open"))]);
    expect(idle).toBe("open");
    socket.write("GET / HTTP/1.1\r\nhost: x\r\n\r\n");
    await answered(2);
    socket.destroy();
  }, 15_000);
});

describe("a server's edge before Next.js's router", () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    // As Next.js hands a route handler its request: a web Request whose body is the IncomingMessage itself; the
    // handler reads it up to a limit, cancels the rest and answers.
    server = edgeServer(
      serverEdge(async (req, res) => {
        if (req.method === "GET") return void res.writeHead(200).end("ok");
        const body = new Request("http://route.test/", { method: "POST", body: req as never, duplex: "half" } as never)
          .body as ReadableStream<Uint8Array>;
        const reader = body.getReader();
        for (let read = 0; read <= 64 * 1024;) read += (await reader.read()).value?.byteLength ?? Infinity;
        await reader.cancel();
        res.writeHead(413, { "content-type": "application/json" }).end("{}");
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it("keeps the request when a route cancels reading its body: the rest is drained, the next request answered", async () => {
    const answers = await answersToBodyThenGet(port, (got) => got.includes("HTTP/1.1 200 "));
    expect(answers.match(/HTTP\/1\.1 \d+ /g)).toEqual(["HTTP/1.1 413 ", "HTTP/1.1 200 "]);
  });
});

describe("the request hooks", () => {
  it("meet every request the server takes first: refused, answered by a direct route, or passed on", async () => {
    const poke = Object.assign(async () => Response.json({ poked: true }), {
      route: { method: "post", path: "/api/poke" },
    }) as unknown as DeclaredHandler;
    const seen: string[] = [];
    const stopSeeing = onEveryRequest((req, res) => {
      // Nothing has been answered yet when a hook runs.
      seen.push(`${req.method} ${req.url} ${res.headersSent ? "answered" : "unanswered"}`);
    });
    const server = edgeServer(serverEdge((_req, res) => res.end("next"), [poke]));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect((await rawRequest(base, "TRACE", "/a")).status).toBe(405);
      expect((await fetch(`${base}/api/poke`, { method: "POST" })).status).toBe(200);
      expect(await (await fetch(`${base}/b`)).text()).toBe("next");
      expect(seen).toEqual(["TRACE /a unanswered", "POST /api/poke unanswered", "GET /b unanswered"]);
    } finally {
      stopSeeing();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
