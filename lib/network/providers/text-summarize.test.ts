import { describe, expect, it } from "vitest";
import { abortedSignal, isNonDecreasing, recordingContext } from "./testing/recording-context";
import { textSummarize } from "./text-summarize";

interface SummaryOutput {
  summary: string;
  sentences: { index: number; text: string; score: number }[];
  sentenceCount: number;
}

const honeybees = [
  "Honeybees pollinate about a third of the crops that people eat.",
  "A honeybee colony can hold 50,000 bees in summer, and nearly all of them are female worker bees.",
  "Worker bees collect nectar and pollen from flowers and carry it back to the hive.",
  "Inside the hive, the bees turn nectar into honey and store it in wax cells.",
  "The queen bee lays up to 2,000 eggs a day, so the colony keeps growing while flowers are in bloom.",
  "Since 2006, beekeepers in Europe and North America have reported losing many colonies each winter.",
  "Scientists blame mites, pesticides and the loss of wild flowers for the decline of honeybee colonies.",
  "My neighbour's cat, meanwhile, slept on the porch all afternoon.",
  "Farmers now plant strips of wild flowers beside their crops to give bees food and shelter.",
];
const article = honeybees.join(" ");

async function summarise(text: string, sentences?: number) {
  const ctx = recordingContext();
  const result = await textSummarize.run(sentences === undefined ? { text } : { text, sentences }, ctx);
  return { ...result, output: result.output as unknown as SummaryOutput, ctx };
}

describe("text-summarize", () => {
  it("keeps three sentences by default, in their original order, quoted exactly", async () => {
    const { output, summary } = await summarise(article);

    expect(output.sentenceCount).toBe(9);
    expect(output.sentences).toHaveLength(3);
    const indexes = output.sentences.map((s) => s.index);
    expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
    for (const s of output.sentences) expect(s.text).toBe(honeybees[s.index]);
    expect(output.summary).toBe(output.sentences.map((s) => s.text).join(" "));
    expect(summary).toBe("Kept the 3 most representative of 9 sentences.");
  });

  it("keeps as many sentences as asked for, the best one scoring 1", async () => {
    const { output } = await summarise(article, 5);
    expect(output.sentences).toHaveLength(5);
    expect(Math.max(...output.sentences.map((s) => s.score))).toBe(1);
    for (const s of output.sentences) expect(s.score).toBeGreaterThan(0);
  });

  it("ranks the off-topic sentence last", async () => {
    const { output } = await summarise(article, 8);
    const left = honeybees.filter((_, i) => !output.sentences.some((s) => s.index === i));
    expect(left).toEqual(["My neighbour's cat, meanwhile, slept on the porch all afternoon."]);
  });

  it("prefers sentences about the text's main subject over its side remarks", async () => {
    const { output } = await summarise(article, 2);
    for (const s of output.sentences) expect(s.text).toMatch(/bee/i);
  });

  it("returns the whole text when it has no more sentences than asked for", async () => {
    const { output, summary } = await summarise(
      "Dr. Smith opened the clinic in 1998. It treats, e.g., sprains and fractures.",
    );
    expect(output.sentenceCount).toBe(2);
    expect(output.summary).toBe("Dr. Smith opened the clinic in 1998. It treats, e.g., sprains and fractures.");
    expect(summary).toBe("The text has only 2 sentences, so the summary keeps them all.");
  });

  it("falls back to the opening sentence when no two sentences share a word", async () => {
    const { output } = await summarise("Cats sleep a lot. Dogs bark loudly at strangers. Rain fell on Tuesday.", 1);
    expect(output.sentences).toEqual([{ index: 0, text: "Cats sleep a lot.", score: 1 }]);
  });

  it("reports progress and one wink-nlp call", async () => {
    const { ctx } = await summarise(article);
    expect(ctx.providerRequests).toEqual([
      expect.objectContaining({
        provider: "wink-nlp",
        model: "wink-eng-lite-web-model",
        sentences: 9,
        latencyMs: expect.any(Number),
      }),
    ]);
    expect(ctx.progressReports.length).toBeGreaterThan(0);
    expect(isNonDecreasing(ctx.progressReports)).toBe(true);
  });

  it("refuses whitespace-only text as a non-retryable failure", async () => {
    await expect(textSummarize.run({ text: " \n " }, recordingContext())).rejects.toMatchObject({
      code: "EMPTY_TEXT",
      retryable: false,
    });
  });

  it("rejects at once when the signal is already aborted", async () => {
    const signal = abortedSignal();
    await expect(textSummarize.run({ text: article }, recordingContext(signal))).rejects.toBe(signal.reason);
  });
});
