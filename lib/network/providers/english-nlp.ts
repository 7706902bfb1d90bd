// The English wink-nlp pipeline shared by the text providers, loaded once per process on first use.
import winkNLP from "wink-nlp";
import model from "wink-eng-lite-web-model";

export const englishModelName = "wink-eng-lite-web-model";

let pipeline: ReturnType<typeof winkNLP> | undefined;

/** The wink-nlp instance with the English lite model (~0.1 s to load the first time). */
export function englishNlp() {
  pipeline ??= winkNLP(model);
  return pipeline;
}

/** Rounds a score for output: four decimals are plenty and keep JSON readable. */
export const round4 = (value: number) => Math.round(value * 10_000) / 10_000;
