import { describe, expect, it } from "vitest";
import { jsonWeight } from "./write-lanes";

describe("a JSON value's weight in a lane's write (a job's input, a result)", () => {
  it("is about the length of its JSON, for text, numbers, arrays and nested objects", () => {
    const inputs = [
      { text: "The quick brown fox. ".repeat(50) },
      { image: "iVBORw0KGgo".repeat(10_000), mimeType: "image/png" },
      { prompt: "Hello", options: { maxTokens: 64, stop: ["\n", "END"] }, stream: false },
    ];
    for (const input of inputs) {
      const json = JSON.stringify(input).length;
      expect(jsonWeight(input)).toBeGreaterThanOrEqual(json * 0.9);
      expect(jsonWeight(input)).toBeLessThanOrEqual(json * 1.5 + 16);
    }
  });
});
