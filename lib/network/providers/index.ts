// The provider registry: the code that runs each service of the catalog, by service id.
import type { ServiceId } from "@/lib/domain/catalog";
import { inCpuPool } from "./cpu-pool";
import { imageOcr } from "./image-ocr";
import { languageDetect } from "./language-detect";
import { textGenerate } from "./text-generate";
import { textSentiment } from "./text-sentiment";
import { textSummarize } from "./text-summarize";
import { tokenCount } from "./token-count";
import type { Provider } from "./types";

/** The longest text counted without the pool: a few hundred microseconds at worst (measured). */
export const tokenCountHereUpTo = 4_000;

export const providers: { [S in ServiceId]: Provider<S> } = {
  // CPU-bound: off the event loop, in the worker-thread pool.
  "text-sentiment": inCpuPool(textSentiment),
  "text-summarize": inCpuPool(textSummarize),
  "language-detect": inCpuPool(languageDetect),
  // Counting tokens costs about 50 µs per 1,000 characters: a short text is counted on the calling thread.
  "token-count": inCpuPool(tokenCount, { runsHere: (input) => input.text.length <= tokenCountHereUpTo }),
  "image-ocr": imageOcr,
  "text-generate": textGenerate,
};
