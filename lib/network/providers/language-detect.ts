// language-detect: identifies the language of a text with franc's trigram models, restricted to major
// languages (unrestricted franc calls plain English "sco" and mixes up close relatives), offline.
import type { Provider } from "./types";

/** The candidates, by franc's ISO 639-3 code: ISO 639-1 code and English name. */
export const detectableLanguages = {
  eng: ["en", "English"],
  deu: ["de", "German"],
  fra: ["fr", "French"],
  spa: ["es", "Spanish"],
  ita: ["it", "Italian"],
  por: ["pt", "Portuguese"],
  nld: ["nl", "Dutch"],
  pol: ["pl", "Polish"],
  swe: ["sv", "Swedish"],
  dan: ["da", "Danish"],
  nob: ["nb", "Norwegian Bokmål"],
  fin: ["fi", "Finnish"],
  tur: ["tr", "Turkish"],
  ces: ["cs", "Czech"],
  slk: ["sk", "Slovak"],
  hun: ["hu", "Hungarian"],
  ron: ["ro", "Romanian"],
  cat: ["ca", "Catalan"],
  hrv: ["hr", "Croatian"],
  slv: ["sl", "Slovenian"],
  lit: ["lt", "Lithuanian"],
  lvs: ["lv", "Latvian"],
  ekk: ["et", "Estonian"],
  ind: ["id", "Indonesian"],
  vie: ["vi", "Vietnamese"],
  rus: ["ru", "Russian"],
  ukr: ["uk", "Ukrainian"],
  bel: ["be", "Belarusian"],
  bul: ["bg", "Bulgarian"],
  srp: ["sr", "Serbian"],
  mkd: ["mk", "Macedonian"],
  kaz: ["kk", "Kazakh"],
  arb: ["ar", "Arabic"],
  pes: ["fa", "Persian"],
  urd: ["ur", "Urdu"],
  hin: ["hi", "Hindi"],
  mar: ["mr", "Marathi"],
  npi: ["ne", "Nepali"],
  ben: ["bn", "Bengali"],
  pan: ["pa", "Punjabi"],
  guj: ["gu", "Gujarati"],
  tam: ["ta", "Tamil"],
  tel: ["te", "Telugu"],
  kan: ["kn", "Kannada"],
  mal: ["ml", "Malayalam"],
  sin: ["si", "Sinhala"],
  tha: ["th", "Thai"],
  lao: ["lo", "Lao"],
  khm: ["km", "Khmer"],
  mya: ["my", "Burmese"],
  cmn: ["zh", "Chinese"],
  jpn: ["ja", "Japanese"],
  kor: ["ko", "Korean"],
  ell: ["el", "Greek"],
  heb: ["he", "Hebrew"],
  kat: ["ka", "Georgian"],
  hye: ["hy", "Armenian"],
  amh: ["am", "Amharic"],
} as const satisfies Record<string, readonly [string, string]>;

type LanguageCode = keyof typeof detectableLanguages;
const candidates = Object.keys(detectableLanguages) as LanguageCode[];
const isCandidate = (code: string): code is LanguageCode => Object.hasOwn(detectableLanguages, code);

/** Below this many letters a trigram model has too little to go on; the answer is "und". */
export const minLetters = 10;
/** franc only looks at the start of a text. */
const francSampleLength = 2048;
/** Softness of the confidence: a rival whose length-scaled score gap is this large is e times less likely. */
const temperature = 6;
const alternativesShown = 3;

type Franc = typeof import("franc");
let francModule: Promise<Franc> | undefined;
// franc is ESM-only; a dynamic import keeps this module loadable from CommonJS callers too.
const loadFranc = () => (francModule ??= import("franc"));

const detection = (code: LanguageCode, confidence: number) => ({
  iso6393: code,
  iso6391: detectableLanguages[code][0],
  name: detectableLanguages[code][1],
  confidence: Math.round(confidence * 1000) / 1000,
});

/**
 * Confidence per candidate, a softmax over the evidence against each language. franc's scores are
 * distances rescaled by the text's length (top = 1), so the same gap to a rival means ten times more
 * on 2,000 characters than on 200; multiplying the gap back by the length gives evidence that grows
 * with the text, and short or ambiguous texts get low confidence by themselves.
 */
export function confidences(
  scores: [string, number][],
  textLength: number,
): { code: LanguageCode; confidence: number }[] {
  const known = scores.filter((entry): entry is [LanguageCode, number] => isCandidate(entry[0]));
  const sampleLength = Math.min(textLength, francSampleLength);
  const weights = known.map(([, score]) => Math.exp((-(1 - score) * sampleLength) / temperature));
  const total = weights.reduce((sum, w) => sum + w, 0);
  return known.map(([code], i) => ({ code, confidence: weights[i] / total }));
}

export const languageDetect: Provider<"language-detect"> = {
  serviceId: "language-detect",

  async warmUp() {
    await loadFranc();
  },

  async run(input, ctx) {
    ctx.signal.throwIfAborted();
    const { text } = input;
    const started = performance.now();
    const { francAll } = await loadFranc();
    ctx.signal.throwIfAborted();
    ctx.progress(30);

    const letters = text.match(/\p{L}/gu)?.length ?? 0;
    const scores = letters < minLetters ? [] : francAll(text, { only: candidates, minLength: 1 });
    const ranked = confidences(scores, text.length);
    ctx.providerRequest({
      provider: "franc",
      model: "franc-trigrams",
      candidates: candidates.length,
      characters: text.length,
      latencyMs: Math.round(performance.now() - started),
    });
    ctx.progress(90);

    const [top, ...rest] = ranked;
    if (!top) {
      return {
        summary:
          letters < minLetters
            ? `The text is too short to tell its language (${letters} letter${letters === 1 ? "" : "s"}; at least ${minLetters} are needed).`
            : "The text is not written in a script of any supported language.",
        output: { iso6393: "und", iso6391: null, name: "Undetermined", confidence: 0, alternatives: [] },
      };
    }
    const best = detection(top.code, top.confidence);
    return {
      summary: `The text is ${best.name} (${best.iso6391}) with confidence ${best.confidence.toFixed(2)}${best.confidence < 0.5 ? ", which is low" : ""}.`,
      output: { ...best, alternatives: rest.slice(0, alternativesShown).map((c) => detection(c.code, c.confidence)) },
    };
  },
};
