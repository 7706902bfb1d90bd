import { describe, expect, it } from "vitest";
import { abortedSignal, isNonDecreasing, recordingContext } from "./testing/recording-context";
import { textSentiment } from "./text-sentiment";

interface SentimentOutput {
  score: number;
  label: string;
  sentences: { text: string; score: number }[];
}

async function sentimentOf(text: string) {
  const ctx = recordingContext();
  const result = await textSentiment.run({ text }, ctx);
  return { ...result, output: result.output as unknown as SentimentOutput, ctx };
}

describe("text-sentiment", () => {
  it("calls an enthusiastic review positive", async () => {
    const { output, summary } = await sentimentOf(
      "I absolutely love this coffee grinder. It is quiet, fast and beautifully made. Best purchase I have made this year!",
    );
    expect(output.label).toBe("positive");
    expect(output.score).toBeGreaterThan(0.3);
    expect(output.score).toBeLessThanOrEqual(1);
    expect(summary).toMatch(/^The text reads positive \(score 0\.\d\d on -1 … 1\) across 3 sentences\.$/);
  });

  it("calls a complaint negative, negation included", async () => {
    const { output } = await sentimentOf("This is not good. The delivery was terribly slow and the box was damaged.");
    expect(output.label).toBe("negative");
    expect(output.score).toBeLessThan(-0.3);
    expect(output.score).toBeGreaterThanOrEqual(-1);
  });

  it("calls factual text neutral with a score of zero", async () => {
    const { output } = await sentimentOf("The meeting is at 3 pm in room 4. Bring the quarterly figures.");
    expect(output).toMatchObject({ label: "neutral", score: 0 });
  });

  it("scores each sentence, segmenting around abbreviations", async () => {
    const { output } = await sentimentOf("Dr. Smith was wonderful. The waiting room, e.g. the chairs, was awful.");
    expect(output.sentences.map((s) => s.text)).toEqual([
      "Dr. Smith was wonderful.",
      "The waiting room, e.g. the chairs, was awful.",
    ]);
    expect(output.sentences[0].score).toBeGreaterThan(0);
    expect(output.sentences[1].score).toBeLessThan(0);
  });

  it("does not let neutral statements water down the opinion in a text", async () => {
    const { output } = await sentimentOf(
      "The parcel arrived on Tuesday. It contained a kettle and a manual. The kettle was in the box. " +
        "The manual has twelve pages. The kettle leaks and it is a terrible product.",
    );
    const opinionated = output.sentences.filter((s) => s.score !== 0);
    expect(opinionated).toHaveLength(1);
    expect(output.score).toBe(opinionated[0].score);
    expect(output.label).toBe("negative");
  });

  it("reports progress and one model call to wink-nlp", async () => {
    const { ctx } = await sentimentOf("Great service.");
    expect(ctx.providerRequests).toEqual([
      expect.objectContaining({
        provider: "wink-nlp",
        model: "wink-eng-lite-web-model",
        latencyMs: expect.any(Number),
      }),
    ]);
    expect(ctx.progressReports.length).toBeGreaterThan(0);
    expect(isNonDecreasing(ctx.progressReports)).toBe(true);
  });

  it("refuses whitespace-only text as a non-retryable failure", async () => {
    await expect(textSentiment.run({ text: "  \n\t " }, recordingContext())).rejects.toMatchObject({
      code: "EMPTY_TEXT",
      retryable: false,
    });
  });

  it("rejects at once when the signal is already aborted", async () => {
    const signal = abortedSignal();
    await expect(textSentiment.run({ text: "Lovely." }, recordingContext(signal))).rejects.toBe(signal.reason);
  });
});
