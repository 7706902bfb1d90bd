// The client carries the caller's trace (CONTRACT §14): with @opentelemetry/api installed (an optional peer
// dependency) and a span active where the caller calls, each request sends its traceparent; with none active,
// nothing. (The packed client without the package is tests/client/pack.test.ts.)
import { context, propagation, ROOT_CONTEXT, trace, TraceFlags, type TextMapPropagator } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExecutionClient } from "@/lib/client/src/index";
import { startFakeApi, type FakeApi } from "./fake-api";

/** A W3C Trace Context propagator's inject, as a caller's SDK registers one (the test needs no more). */
const traceparentOnly: TextMapPropagator = {
  inject(active, carrier, setter) {
    const span = trace.getSpanContext(active);
    if (span) setter.set(carrier, "traceparent", `00-${span.traceId}-${span.spanId}-0${span.traceFlags}`);
  },
  extract: (active) => active,
  fields: () => ["traceparent"],
};

let api: FakeApi;
beforeAll(async () => {
  // What a caller's own OpenTelemetry set-up registers (its SDK does this).
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(traceparentOnly);
  api = await startFakeApi(() => ({ status: 200, body: [] }));
});
afterAll(async () => {
  context.disable();
  propagation.disable();
  await api?.close();
});

const callerSpan = {
  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
  spanId: "00f067aa0ba902b7",
  traceFlags: TraceFlags.SAMPLED,
};

describe("the client and the caller's trace", () => {
  it("sends the active span's traceparent with each request", async () => {
    const client = new ExecutionClient({ apiKey: "dev_x", baseUrl: api.baseUrl });
    await context.with(trace.setSpanContext(ROOT_CONTEXT, callerSpan), () => client.listServices());
    expect(api.requests.at(-1)?.headers.traceparent).toBe(`00-${callerSpan.traceId}-${callerSpan.spanId}-01`);
  });

  it("sends none without an active span", async () => {
    const client = new ExecutionClient({ apiKey: "dev_x", baseUrl: api.baseUrl });
    await client.listServices();
    expect(api.requests.at(-1)?.headers).not.toHaveProperty("traceparent");
  });
});
