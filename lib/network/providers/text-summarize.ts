// text-summarize: extractive summary. wink-nlp segments the text into sentences and lemmatises the words;
// the sentences are ranked with TextRank over TF-IDF cosine similarity, written here.
// The work is capped (limits.summarizeMaxSentences, limits.textRankMaxIterations) and runs in the CPU pool.
import type { ItemSentence, ItemToken, ItsFunction } from "wink-nlp";
import { limits } from "@/lib/limits";
import { englishModelName, englishNlp, round4 } from "./english-nlp";
import { ProviderError, type Provider } from "./types";

const defaultSentences = 3;
const damping = 0.85;

type TermVector = Map<string, number>;

/** Content words of a sentence as lower-case lemmas (stop words, punctuation and numbers left out). */
function contentTerms(sentence: ItemSentence, its: ReturnType<typeof englishNlp>["its"]): string[] {
  // wink-nlp's typings declare `its.lemma` with the model addons as third parameter, which does not match
  // its own ItsFunction type; at run time it is an ordinary token helper.
  const lemma = its.lemma as ItsFunction<string>;
  const terms: string[] = [];
  sentence.tokens().each((token: ItemToken) => {
    if (token.out(its.type) !== "word" || token.out(its.stopWordFlag)) return;
    terms.push(String(token.out(lemma)).toLowerCase());
  });
  return terms;
}

/** TF-IDF vectors, one per sentence, treating each sentence as a document. */
function tfIdfVectors(sentenceTerms: string[][]): TermVector[] {
  const documentFrequency = new Map<string, number>();
  for (const terms of sentenceTerms) {
    for (const term of new Set(terms)) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  }
  const n = sentenceTerms.length;
  return sentenceTerms.map((terms) => {
    const vector: TermVector = new Map();
    for (const term of terms) vector.set(term, (vector.get(term) ?? 0) + 1);
    for (const [term, tf] of vector) vector.set(term, tf * Math.log(1 + n / (documentFrequency.get(term) ?? 1)));
    return vector;
  });
}

const norm = (v: TermVector) => Math.sqrt([...v.values()].reduce((sum, x) => sum + x * x, 0));

function cosine(a: TermVector, b: TermVector, normA: number, normB: number): number {
  if (normA === 0 || normB === 0) return 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [term, x] of small) dot += x * (large.get(term) ?? 0);
  return dot / (normA * normB);
}

/** Weighted PageRank over the similarity graph; a sentence with no similar sentence spreads its rank evenly. */
function textRank(similarity: number[][]): number[] {
  const n = similarity.length;
  const outWeight = similarity.map((row) => row.reduce((sum, w) => sum + w, 0));
  let rank = new Array<number>(n).fill(1 / n);
  for (let iteration = 0; iteration < limits.textRankMaxIterations; iteration++) {
    const dangling = rank.reduce((sum, r, j) => (outWeight[j] === 0 ? sum + r : sum), 0);
    const next = rank.map((_, i) => {
      let incoming = 0;
      for (let j = 0; j < n; j++) if (outWeight[j] > 0) incoming += (similarity[j][i] / outWeight[j]) * rank[j];
      return (1 - damping) / n + damping * (incoming + dangling / n);
    });
    const change = next.reduce((sum, r, i) => sum + Math.abs(r - rank[i]), 0);
    rank = next;
    if (change < 1e-9) break;
  }
  return rank;
}

export interface RankedSentence {
  index: number;
  text: string;
  /** TextRank score relative to the best sentence (1). */
  score: number;
}

/**
 * Picks `count` sentences: highest TextRank first; ties (common in short texts, where sentences share
 * no words) go to the sentence closest to the text's TF-IDF centroid, then to the earlier sentence.
 * The result keeps the original order.
 */
export function rankSentences(texts: string[], sentenceTerms: string[][], count: number): RankedSentence[] {
  const vectors = tfIdfVectors(sentenceTerms);
  const norms = vectors.map(norm);
  const similarity = vectors.map((a, i) => vectors.map((b, j) => (i === j ? 0 : cosine(a, b, norms[i], norms[j]))));
  const rank = textRank(similarity);

  const centroid: TermVector = new Map();
  vectors.forEach((v, i) => {
    for (const [term, x] of v) if (norms[i] > 0) centroid.set(term, (centroid.get(term) ?? 0) + x / norms[i]);
  });
  const centroidNorm = norm(centroid);
  const closeness = vectors.map((v, i) => cosine(v, centroid, norms[i], centroidNorm));

  const best = Math.max(...rank);
  const tieTolerance = 1e-9;
  return texts
    .map((text, index) => ({ index, text, rank: rank[index], closeness: closeness[index] }))
    .sort((a, b) =>
      Math.abs(a.rank - b.rank) > tieTolerance
        ? b.rank - a.rank
        : Math.abs(a.closeness - b.closeness) > tieTolerance
          ? b.closeness - a.closeness
          : a.index - b.index,
    )
    .slice(0, count)
    .sort((a, b) => a.index - b.index)
    .map(({ index, text, rank: r }) => ({ index, text, score: round4(r / best) }));
}

export const textSummarize: Provider<"text-summarize"> = {
  serviceId: "text-summarize",

  async warmUp() {
    englishNlp();
  },

  async run(input, ctx) {
    ctx.signal.throwIfAborted();
    const { text, sentences: wanted = defaultSentences } = input;
    if (!text.trim()) throw new ProviderError("EMPTY_TEXT", "The text is empty.", false);

    const started = performance.now();
    const nlp = englishNlp();
    const doc = nlp.readDoc(text);
    const texts: string[] = [];
    const sentenceTerms: string[][] = [];
    let sentenceCount = 0;
    doc.sentences().each((sentence: ItemSentence) => {
      const sentenceText = sentence.out().trim();
      if (!sentenceText) return;
      sentenceCount++;
      // Beyond the cap, sentences are counted but not ranked: the work stays bounded whatever the input.
      if (texts.length >= limits.summarizeMaxSentences) return;
      texts.push(sentenceText);
      sentenceTerms.push(contentTerms(sentence, nlp.its));
    });
    ctx.progress(40);
    ctx.signal.throwIfAborted();

    const picked = rankSentences(texts, sentenceTerms, wanted);
    ctx.providerRequest({
      provider: "wink-nlp",
      model: englishModelName,
      operation: "extractive-summary",
      method: "textrank-tfidf",
      characters: text.length,
      sentences: sentenceCount,
      rankedSentences: texts.length,
      latencyMs: Math.round(performance.now() - started),
    });
    ctx.progress(90);

    return {
      summary:
        sentenceCount > texts.length
          ? `Kept the ${picked.length} most representative of the first ${texts.length} of ${sentenceCount} sentences.`
          : picked.length < texts.length
            ? `Kept the ${picked.length} most representative of ${texts.length} sentences.`
            : `The text has only ${texts.length} sentence${texts.length === 1 ? "" : "s"}, so the summary keeps ${texts.length === 1 ? "it" : "them all"}.`,
      output: {
        summary: picked.map((s) => s.text).join(" "),
        sentences: picked,
        sentenceCount,
        rankedSentences: texts.length,
      },
    };
  },
};
