// text-sentiment: scores English text with the wink-nlp English lite model's sentiment analysis, offline.
import type { ItemSentence } from "wink-nlp";
import { englishModelName, englishNlp, round4 } from "./english-nlp";
import { ProviderError, type Provider } from "./types";

export type SentimentLabel = "positive" | "negative" | "neutral";

/** Scores closer to zero than this read as neutral (the usual cut-off for lexicon sentiment). */
const neutralBand = 0.05;

export const labelOf = (score: number): SentimentLabel =>
  score >= neutralBand ? "positive" : score <= -neutralBand ? "negative" : "neutral";

export const textSentiment: Provider<"text-sentiment"> = {
  serviceId: "text-sentiment",

  async warmUp() {
    englishNlp();
  },

  async run(input, ctx) {
    ctx.signal.throwIfAborted();
    const { text } = input;
    if (!text.trim()) throw new ProviderError("EMPTY_TEXT", "The text is empty.", false);

    const started = performance.now();
    const nlp = englishNlp();
    ctx.progress(20);
    const doc = nlp.readDoc(text);
    const sentences: { text: string; score: number }[] = [];
    doc.sentences().each((sentence: ItemSentence) => {
      const sentenceText = sentence.out().trim();
      if (sentenceText) sentences.push({ text: sentenceText, score: Number(sentence.out(nlp.its.sentiment)) });
    });
    ctx.providerRequest({
      provider: "wink-nlp",
      model: englishModelName,
      operation: "sentiment",
      characters: text.length,
      sentences: sentences.length,
      latencyMs: Math.round(performance.now() - started),
    });
    ctx.progress(90);

    // wink's document score is the mean over all sentences, so neutral statements ("It arrived on
    // Tuesday.") dilute the opinion of a review; average only the sentences that carry sentiment.
    const opinions = sentences.filter((s) => s.score !== 0);
    const score = opinions.length ? opinions.reduce((sum, s) => sum + s.score, 0) / opinions.length : 0;
    const label = labelOf(score);

    return {
      summary: `The text reads ${label} (score ${score.toFixed(2)} on -1 … 1) across ${sentences.length} sentence${sentences.length === 1 ? "" : "s"}.`,
      output: {
        score: round4(score),
        label,
        sentences: sentences.map((s) => ({ text: s.text, score: round4(s.score) })),
      },
    };
  },
};
