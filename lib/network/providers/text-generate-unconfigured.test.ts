import { describe, expect, it } from "vitest";
import { recordingContext } from "./testing/recording-context";
import { textGenerate } from "./text-generate";

// env() reads process.env once per process, and each test file runs in its own.
delete process.env.LLM_BASE_URL;

describe("text-generate without an LLM endpoint", () => {
  it("fails at once, non-retryably, without recording a provider request", async () => {
    const ctx = recordingContext();
    await expect(textGenerate.run({ prompt: "Hi" }, ctx)).rejects.toMatchObject({
      code: "PROVIDER_NOT_CONFIGURED",
      retryable: false,
    });
    expect(ctx.providerRequests).toEqual([]);
  });
});
