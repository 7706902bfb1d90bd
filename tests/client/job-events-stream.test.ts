// streamJobEvents reads the job's server-sent events, resumes with Last-Event-ID after a dropped
// connection, and ends when the server closes the stream after the final state.
import type http from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import {
  ExecutionAbortError,
  ExecutionApiError,
  ExecutionClient,
  ExecutionConnectionError,
  type JobStreamEvent,
} from "@/lib/client/src/index";
import { envelope, jobFixture, startFakeApi, type FakeApi, type Reply } from "./fake-api";

let api: FakeApi;
afterEach(() => api?.close());

const clientFor = (maxRetries = 2) => new ExecutionClient({ apiKey: "dev_test", baseUrl: api.baseUrl, maxRetries });

const telemetry = (sequence: number, type: string) => ({
  eventId: `ev_${sequence}`,
  jobId: "job_1",
  sequence,
  type,
  timestamp: "2025-01-01T00:00:00.000Z",
  attempt: 1,
});
const statusMessage = (status: string, id?: number) =>
  `${id ? `id: ${id}\n` : ""}event: status\ndata: ${JSON.stringify(jobFixture({ status }))}\n\n`;
const telemetryMessage = (sequence: number, type: string) =>
  `id: ${sequence}\nevent: telemetry\ndata: ${JSON.stringify(telemetry(sequence, type))}\n\n`;

/** An event-stream reply that writes `chunks` a few ms apart, then ends (or drops) the connection. */
function stream(chunks: string[], end: "end" | "drop" = "end"): Reply {
  return {
    raw: (res: http.ServerResponse) => {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
      let i = 0;
      const next = () => {
        if (res.destroyed) return;
        if (i < chunks.length) {
          res.write(chunks[i++]);
          setTimeout(next, 5);
        } else if (end === "end") res.end();
        else res.destroy();
      };
      next();
    },
  };
}

async function collect(events: AsyncIterable<JobStreamEvent>): Promise<string[]> {
  const seen: string[] = [];
  for await (const e of events)
    seen.push(e.type === "status" ? `status:${e.job.status}` : `telemetry:${e.event.sequence}:${e.event.type}`);
  return seen;
}

describe("streamJobEvents", () => {
  it("yields status and telemetry messages and ends when the server closes after the final state", async () => {
    const body = [
      ": connected\n\n",
      statusMessage("queued"),
      telemetryMessage(1, "JOB_CREATED"),
      // One message split across chunks, mid-field and between CR and LF.
      telemetryMessage(2, "WORKFLOW_INITIALIZED").replace(/\n/g, "\r\n").slice(0, 30),
      telemetryMessage(2, "WORKFLOW_INITIALIZED").replace(/\n/g, "\r\n").slice(30, -1),
      "\n",
      "event: future-kind\ndata: {}\n\n",
      statusMessage("completed", 3),
    ]
      .join("§")
      .split("§");
    api = await startFakeApi(() => stream(body));
    const events = await collect(clientFor().streamJobEvents("job_1"));
    expect(events).toEqual([
      "status:queued",
      "telemetry:1:JOB_CREATED",
      "telemetry:2:WORKFLOW_INITIALIZED",
      "status:completed",
    ]);
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]).toMatchObject({ method: "GET", url: "/api/developers/jobs/job_1/events" });
    expect(api.requests[0]?.headers.accept).toBe("text/event-stream");
    expect(api.requests[0]?.headers["x-api-key"]).toBe("dev_test");
  });

  it("gives each message the stream's last event id", async () => {
    api = await startFakeApi(() =>
      stream([statusMessage("running"), telemetryMessage(7, "EXECUTION_STARTED"), statusMessage("completed")]),
    );
    const ids: (string | null)[] = [];
    for await (const e of clientFor().streamJobEvents("job_1")) ids.push(e.id);
    expect(ids).toEqual([null, "7", "7"]);
  });

  it("reconnects after a dropped connection with Last-Event-ID and continues where it stopped", async () => {
    api = await startFakeApi((_, n) =>
      n === 0
        ? stream(
            [
              "retry: 10\n\n",
              statusMessage("running"),
              telemetryMessage(1, "JOB_CREATED"),
              telemetryMessage(2, "WORKFLOW_INITIALIZED"),
            ],
            "drop",
          )
        : stream([statusMessage("running"), telemetryMessage(3, "ROUTING_STARTED"), statusMessage("completed")]),
    );
    const events = await collect(clientFor().streamJobEvents("job_1"));
    // The second connection restates the unchanged "running" state: not repeated.
    expect(events).toEqual([
      "status:running",
      "telemetry:1:JOB_CREATED",
      "telemetry:2:WORKFLOW_INITIALIZED",
      "telemetry:3:ROUTING_STARTED",
      "status:completed",
    ]);
    expect(api.requests.map((r) => r.headers["last-event-id"])).toEqual([undefined, "2"]);
  });

  it("reconnects when the server ends the stream before the final state", async () => {
    api = await startFakeApi((_, n) =>
      n === 0 ? stream(["retry: 10\n\n", telemetryMessage(1, "JOB_CREATED")]) : stream([statusMessage("failed", 2)]),
    );
    expect(await collect(clientFor().streamJobEvents("job_1"))).toEqual(["telemetry:1:JOB_CREATED", "status:failed"]);
    expect(api.requests[1]?.headers["last-event-id"]).toBe("1");
  });

  it("resumes from the caller's lastEventId", async () => {
    api = await startFakeApi(() => stream([statusMessage("completed")]));
    await collect(clientFor().streamJobEvents("job_1", { lastEventId: "41" }));
    expect(api.requests[0]?.headers["last-event-id"]).toBe("41");
  });

  it("gives up with ExecutionConnectionError when connections keep closing without events", async () => {
    api = await startFakeApi(() => stream(["retry: 10\n\n"]));
    await expect(collect(clientFor(2).streamJobEvents("job_1"))).rejects.toBeInstanceOf(ExecutionConnectionError);
    expect(api.requests).toHaveLength(3);
  });

  it("gives up too when every connection only restates the same state", async () => {
    api = await startFakeApi(() => stream(["retry: 10\n\n", statusMessage("running")]));
    const seen: string[] = [];
    const error = await (async () => {
      for await (const e of clientFor(2).streamJobEvents("job_1")) seen.push(e.type);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExecutionConnectionError);
    expect(seen).toEqual(["status"]);
    // The first connection brought news; the next three did not (maxRetries 2 → give up on the third).
    expect(api.requests).toHaveLength(4);
  });

  it("maps an error answer like any request: 404 at once, 503 retried", async () => {
    api = await startFakeApi(() => envelope("JOB_NOT_FOUND", 404));
    await expect(collect(clientFor().streamJobEvents("job_x"))).rejects.toBeInstanceOf(ExecutionApiError);
    expect(api.requests).toHaveLength(1);

    await api.close();
    api = await startFakeApi((_, n) =>
      n === 0 ? { status: 503, headers: { "retry-after": "0" } } : stream([statusMessage("completed")]),
    );
    expect(await collect(clientFor().streamJobEvents("job_1"))).toEqual(["status:completed"]);
  });

  it("the caller's abort ends the stream at once", async () => {
    // A stream that stays open after its first message.
    api = await startFakeApi(() => ({
      raw: (res) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(statusMessage("running"));
      },
    }));
    const controller = new AbortController();
    const seen: string[] = [];
    const error = await (async () => {
      for await (const e of clientFor().streamJobEvents("job_1", { signal: controller.signal })) {
        seen.push(e.type);
        setTimeout(() => controller.abort(), 20);
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExecutionAbortError);
    expect(seen).toEqual(["status"]);
  });

  it("breaking out of the loop closes the connection", async () => {
    let closed: Promise<void> = Promise.resolve();
    api = await startFakeApi(() => ({
      raw: (res) => {
        closed = new Promise((resolve) => res.on("close", () => resolve()));
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(statusMessage("running"));
      },
    }));
    for await (const e of clientFor().streamJobEvents("job_1")) if (e.type === "status") break;
    await expect(closed).resolves.toBeUndefined();
  });
});
