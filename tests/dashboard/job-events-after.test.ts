// The job page's catch-up read (its event stream's fallback, and its resume after a reconnect) follows the
// telemetry list by cursor: each next page is asked for `after` the last page's nextCursor, never by page
// number, so it costs the same on the 3rd page of a job's telemetry as on the 3,000th (issue 43, item 2).
import { afterEach, describe, expect, it, vi } from "vitest";
import { fetchJobEventsAfter } from "@/components/data/jobs";
import type { TelemetryEvent, TelemetryPage } from "@/components/data/types";
import { decodeCursor, encodeCursor } from "@/lib/contract/list-cursor";

const jobId = "7b0c1c9e-8f5e-4a55-9a57-2c1f1b0b6a10";

function event(sequence: number): TelemetryEvent {
  return {
    eventId: `e${sequence}`,
    jobId,
    sequence,
    type: "PROVIDER_REQUEST",
    timestamp: "2026-12-01T12:00:00.000Z",
    attempt: 1,
  };
}

/** A telemetry route of `count` events that pages only by cursor: a page number is not an answer it gives. */
function serveTelemetry(count: number, requested: URL[]) {
  return vi.fn(async (input: string | URL | Request) => {
    const url = new URL(String(input), "http://dashboard.test");
    requested.push(url);
    const after = url.searchParams.get("after");
    const limit = Number(url.searchParams.get("limit"));
    const from = after === null ? 0 : (decodeCursor("telemetry", after)?.seq ?? NaN);
    if (url.searchParams.has("page") || Number.isNaN(from)) return new Response("{}", { status: 400 });
    const data = Array.from({ length: Math.max(0, Math.min(limit, count - from)) }, (_, i) => event(from + i + 1));
    const last = data.at(-1)?.sequence;
    const hasMore = last !== undefined && last < count;
    const page: TelemetryPage = {
      data,
      pagination: {
        page: 1,
        limit,
        total: count,
        totalPages: Math.ceil(count / limit),
        hasMore,
        totalIsLowerBound: false,
        nextCursor: hasMore ? encodeCursor("telemetry", [last]) : null,
        prevCursor: null,
      },
    };
    return Response.json(page);
  });
}

afterEach(() => vi.unstubAllGlobals());

describe("the job page's read of a job's later telemetry", () => {
  it("asks for each page after the last one's cursor and gets every later event once, in order", async () => {
    const requested: URL[] = [];
    vi.stubGlobal("fetch", serveTelemetry(250, requested));

    const events = await fetchJobEventsAfter(jobId, 42);

    expect(events.map((e) => e.sequence)).toEqual(Array.from({ length: 208 }, (_, i) => 43 + i));
    expect(requested.every((url) => url.pathname === `/api/developers/jobs/${jobId}/telemetry`)).toBe(true);
    expect(requested.map((url) => decodeCursor("telemetry", url.searchParams.get("after") ?? "")?.seq)).toEqual([
      42, 142, 242,
    ]);
    expect(requested.some((url) => url.searchParams.has("page"))).toBe(false);
  });

  it("asks once when nothing is newer than what the page holds", async () => {
    const requested: URL[] = [];
    vi.stubGlobal("fetch", serveTelemetry(7, requested));

    expect(await fetchJobEventsAfter(jobId, 7)).toEqual([]);
    expect(requested).toHaveLength(1);
  });
});
