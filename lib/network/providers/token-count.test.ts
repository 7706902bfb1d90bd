import { describe, expect, it } from "vitest";
import { tokenCountModels, type ServiceInput } from "@/lib/domain/catalog";
import { abortedSignal, recordingContext } from "./testing/recording-context";
import { encodingOf, tokenCount } from "./token-count";

async function count(text: string, model?: ServiceInput<"token-count">["model"]) {
  const ctx = recordingContext();
  const result = await tokenCount.run(model === undefined ? { text } : { text, model }, ctx);
  return { ...result, ctx };
}

describe("token-count", () => {
  it("uses o200k_base for the gpt-4o, gpt-4.1 and o-series models and cl100k_base for gpt-4, gpt-3.5 and embeddings", () => {
    expect(Object.fromEntries(tokenCountModels.map((m) => [m, encodingOf(m)]))).toEqual({
      "gpt-4o": "o200k_base",
      "gpt-4o-mini": "o200k_base",
      "gpt-4.1": "o200k_base",
      "gpt-4": "cl100k_base",
      "gpt-3.5-turbo": "cl100k_base",
      o1: "o200k_base",
      "o3-mini": "o200k_base",
      "text-embedding-3-small": "cl100k_base",
    });
  });

  it("counts tokens like tiktoken, defaulting to gpt-4o", async () => {
    // tiktoken: o200k_base "tiktoken is great!" → [83, 8251, 2488, 382, 2212, 0]
    const { output, summary } = await count("tiktoken is great!");
    expect(output).toEqual({ model: "gpt-4o", encoding: "o200k_base", tokens: 6, characters: 18 });
    expect(summary).toBe("6 tokens for gpt-4o (o200k_base), 18 characters.");
  });

  it("gives different counts where the encodings differ", async () => {
    const text = "Die Bürgerinnen und Bürger der Stadt diskutierten über den Haushaltsentwurf. 東京は日本の首都です。";
    const gpt4o = await count(text, "gpt-4o");
    const gpt4 = await count(text, "gpt-4");
    expect(gpt4.output).toMatchObject({ model: "gpt-4", encoding: "cl100k_base" });
    expect(gpt4o.output.tokens).toBeLessThan(Number(gpt4.output.tokens));
  });

  it("counts special-token text such as <|endoftext|> as ordinary text instead of refusing it", async () => {
    const { output } = await count("a <|endoftext|> b", "gpt-4");
    // Read as text it is eight BPE pieces; as the special token it would be a single id.
    expect(output.tokens).toBe(8);
  });

  it("counts characters as code points, so an emoji is one character", async () => {
    const { output } = await count("ok 👍");
    expect(output.characters).toBe(4);
  });

  it("records one tokenizer call with its model and encoding", async () => {
    const { ctx } = await count("hello world", "text-embedding-3-small");
    expect(ctx.providerRequests).toEqual([
      expect.objectContaining({ provider: "gpt-tokenizer", model: "text-embedding-3-small", encoding: "cl100k_base" }),
    ]);
    expect(ctx.progressReports.length).toBeGreaterThan(0);
  });

  it("rejects at once when the signal is already aborted", async () => {
    const signal = abortedSignal();
    await expect(tokenCount.run({ text: "hello" }, recordingContext(signal))).rejects.toBe(signal.reason);
  });
});
