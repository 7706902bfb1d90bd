import { describe, expect, it } from "vitest";
import { jsonResponse } from "./json-response";

describe("a JSON answer's size decides whether next start may compress it", () => {
  it("marks a body under 1 KiB no-transform, keeping the route's own caching", () => {
    const small = jsonResponse({ text: "a".repeat(600) }, 200, { "cache-control": "no-store" });
    expect(small.headers.get("cache-control")).toBe("no-store, no-transform");
    expect(small.headers.get("content-type")).toBe("application/json");
  });

  it("counts bytes, not characters: 600 two-byte characters are over 1 KiB and may be compressed", () => {
    const accented = jsonResponse({ text: "é".repeat(600) }, 200);
    expect(accented.headers.get("cache-control")).toBeNull();
    expect(jsonResponse({ text: "a".repeat(1100) }, 200).headers.get("cache-control")).toBeNull();
  });
});
