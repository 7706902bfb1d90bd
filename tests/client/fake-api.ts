// A real HTTP server on 127.0.0.1 that answers each request with a scripted reply: statuses, headers,
// delays and dropped connections — what the client's retry, timeout and abort logic must survive.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/api/developers/jobs?page=2`. */
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** When the request arrived (performance.now()). */
  at: number;
}

export type Reply =
  | { status: number; headers?: Record<string, string>; body?: unknown; delayMs?: number }
  /** Destroys the socket without an answer: a network error for the client. */
  | { drop: true }
  /** Writes the raw response itself (event streams). */
  | { raw: (res: http.ServerResponse) => void };

/** Decides the reply to the n-th request (0-based). */
export type Script = (request: RecordedRequest, n: number) => Reply;

export interface FakeApi {
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export function envelope(code: string, status: number, extra: Record<string, unknown> = {}): Reply {
  return {
    status,
    headers: { "x-request-id": `req_${code.toLowerCase()}` },
    body: { error: { code, message: `${code} happened.`, requestId: `req_${code.toLowerCase()}`, ...extra } },
  };
}

export async function startFakeApi(script: Script): Promise<FakeApi> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    // Recorded on arrival, so a request the client abandons early still counts as an attempt.
    const request: RecordedRequest = {
      method: req.method ?? "",
      url: req.url ?? "",
      headers: req.headers,
      body: "",
      at: performance.now(),
    };
    const n = requests.push(request) - 1;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      request.body = Buffer.concat(chunks).toString("utf8");
      const reply = script(request, n);
      if ("drop" in reply) {
        req.socket.destroy();
        return;
      }
      if ("raw" in reply) {
        reply.raw(res);
        return;
      }
      const send = () => {
        if (res.destroyed) return;
        const body =
          reply.body === undefined ? "" : typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body);
        res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
        res.end(body);
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        if (!server.listening) return resolve();
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** A complete ExecutionJob for scripted replies. */
export function jobFixture(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = new Date("2025-01-01T00:00:00.000Z").toISOString();
  return {
    jobId: "job_1",
    workflowRunId: "wfr_1",
    serviceId: "token-count",
    status: "queued",
    progress: 0,
    input: { text: "hello" },
    creditCost: 1,
    attempt: 0,
    maxAttempts: 3,
    assignedNode: null,
    result: null,
    error: null,
    createdAt: now,
    updatedAt: now,
    startedAt: null,
    completedAt: null,
    ...overrides,
  };
}
