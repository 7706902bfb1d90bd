// Requests fetch refuses to send (TRACE, CONNECT: forbidden methods of the Fetch standard), over node:http.
import { request as httpRequest } from "node:http";

/**
 * One request over node:http, for the methods fetch refuses to send (TRACE, CONNECT): its answer as a Response.
 * A CONNECT's answer ends the exchange (Node's client hands over the socket; the answer's body follows).
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Response> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      hostname,
      port,
      method,
      path,
      headers: { ...options.headers, connection: "close" },
      signal: options.signal,
    });
    const settle = (status: number, rawHeaders: string[], body: Promise<Buffer>) =>
      body.then((bytes) => {
        const headers = new Headers();
        for (let i = 0; i < rawHeaders.length; i += 2) headers.append(rawHeaders[i], rawHeaders[i + 1]);
        resolve(new Response(status === 204 || method === "HEAD" ? null : new Uint8Array(bytes), { status, headers }));
      }, reject);
    const collect = (stream: NodeJS.ReadableStream, first: Buffer[] = []) =>
      new Promise<Buffer>((done, fail) => {
        const chunks = [...first];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", () => done(Buffer.concat(chunks)));
        stream.on("error", fail);
      });
    req.on("response", (res) => settle(res.statusCode ?? 0, res.rawHeaders, collect(res)));
    req.on("connect", (res, socket, head) => settle(res.statusCode ?? 0, res.rawHeaders, collect(socket, [head])));
    req.on("error", reject);
    req.end();
  });
}
