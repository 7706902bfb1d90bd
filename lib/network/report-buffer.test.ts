import { describe, expect, it, vi } from "vitest";
import type { ProgressReport } from "@/lib/contract/node-protocol";
import { mergeReports, ReportBuffer } from "./report-buffer";

describe("the node's report buffer", () => {
  it("merges reports: highest progress, provider requests and logs in order", () => {
    expect(
      mergeReports(
        { progress: 40, providerRequests: [{ a: 1 }], logs: [{ level: "info", message: "one" }] },
        { progress: 30, providerRequests: [{ b: 2 }], logs: [{ level: "warn", message: "two" }] },
      ),
    ).toEqual({
      progress: 40,
      providerRequests: [{ a: 1 }, { b: 2 }],
      logs: [
        { level: "info", message: "one" },
        { level: "warn", message: "two" },
      ],
    });
  });

  it("hands a fast job's reports to its final report instead of sending them", async () => {
    const sent: ProgressReport[] = [];
    const buffer = new ReportBuffer(async (r) => void sent.push(r), 60_000);
    buffer.add({ progress: 40 });
    buffer.add({ providerRequests: [{ provider: "x" }] });
    expect(await buffer.close()).toEqual({ progress: 40, providerRequests: [{ provider: "x" }] });
    expect(sent).toEqual([]);
  });

  it("sends one merged report after the delay, and nothing after close", async () => {
    vi.useFakeTimers();
    try {
      const sent: ProgressReport[] = [];
      const buffer = new ReportBuffer(async (r) => void sent.push(r), 100);
      buffer.add({ progress: 10 });
      buffer.add({ progress: 20 });
      await vi.advanceTimersByTimeAsync(99);
      expect(sent).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(sent).toEqual([{ progress: 20 }]);

      // A report added before close is handed back, not sent, even once its delay has passed.
      buffer.add({ progress: 50 });
      expect(await buffer.close()).toEqual({ progress: 50 });
      buffer.add({ progress: 90 });
      await vi.advanceTimersByTimeAsync(1_000);
      expect(sent).toEqual([{ progress: 20 }]);
    } finally {
      vi.useRealTimers();
    }
  });
});
