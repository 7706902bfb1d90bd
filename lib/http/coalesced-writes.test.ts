// A response whose headers are flushed and whose body follows in the same tick (how Next.js sends every
// route's answer) reaches the socket in one write; headers flushed alone still leave within the tick.
import { createServer, request, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coalesceHeaderWrites } from "./coalesced-writes";

/** The writes a socket hands to the operating system: a Writable calls _write or _writev once for each. */
function countWrites(socket: Socket): () => number {
  type Method = (this: Socket, ...args: unknown[]) => void;
  const writable = socket as unknown as { _write: Method; _writev: Method };
  let writes = 0;
  const counted = (method: Method): Method =>
    function (...args) {
      writes++;
      method.apply(this, args);
    };
  writable._write = counted(writable._write);
  writable._writev = counted(writable._writev);
  return () => writes;
}

let server: Server;
let port: number;
const handlers = new Map<string, (res: ServerResponse) => void>();

beforeAll(async () => {
  coalesceHeaderWrites();
  server = createServer((req, res) => handlers.get(req.url ?? "")?.(res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** GETs `path`, resolving with the response as soon as its head arrives. */
function head(path: string): Promise<import("node:http").IncomingMessage> {
  return new Promise((resolve, reject) =>
    request({ port, host: "127.0.0.1", path }, resolve).on("error", reject).end(),
  );
}

describe("a response's headers", () => {
  it("share one write with the body written in the same tick", async () => {
    let writes = () => 0;
    let finish = () => {};
    handlers.set("/together", (res) => {
      writes = countWrites(res.socket as Socket);
      res.setHeader("content-type", "application/json");
      res.flushHeaders();
      res.write('{"ok":true}');
      // Ended only once the head has been counted (a timer could fire first on a busy machine).
      finish = () => res.end();
    });
    const res = await head("/together");
    // The head and the first chunk have arrived; end() has not run yet.
    expect(writes()).toBe(1);
    finish();
    res.resume();
    await new Promise((resolve) => res.on("end", resolve));
  });

  it("still leave at once when nothing follows them", async () => {
    let finish = () => {};
    handlers.set("/alone", (res) => {
      res.flushHeaders();
      finish = () => res.end();
    });
    const res = await head("/alone");
    expect(res.statusCode).toBe(200);
    finish();
    res.resume();
    await new Promise((resolve) => res.on("end", resolve));
  });
});
