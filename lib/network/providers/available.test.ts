import { describe, expect, it } from "vitest";
import type { ServiceInput } from "@/lib/domain/catalog";
import { parsingWireInput } from "./available";
import { recordingContext } from "./testing/recording-context";
import type { Provider } from "./types";

/** A text-summarize provider that only records the input it was handed. */
function recordingSummarizer() {
  const received: ServiceInput<"text-summarize">[] = [];
  const provider: Provider<"text-summarize"> = {
    serviceId: "text-summarize",
    async run(input) {
      received.push(input);
      return { summary: "recorded", output: {} };
    },
  };
  return { provider, received };
}

describe("a node parses a claimed job's input with its service's schema", () => {
  it("hands the provider the input the schema accepts", async () => {
    const { provider, received } = recordingSummarizer();
    await parsingWireInput(provider).run({ text: "One. Two. Three.", sentences: 2 }, recordingContext());
    expect(received).toEqual([{ text: "One. Two. Three.", sentences: 2 }]);
  });

  it.each([
    ["a number where text belongs", { text: 42 }],
    ["a string count of sentences", { text: "One. Two.", sentences: "2" }],
    ["a member the schema does not know", { text: "One.", extra: true }],
    ["no text at all", {}],
  ])("fails for good, without running the provider, on %s", async (_, input) => {
    const { provider, received } = recordingSummarizer();
    const failure = parsingWireInput(provider).run(input, recordingContext());
    await expect(failure).rejects.toMatchObject({ name: "ProviderError", code: "INPUT_INVALID", retryable: false });
    await expect(failure).rejects.toThrow(/text-summarize input schema/);
    expect(received).toEqual([]);
  });
});
