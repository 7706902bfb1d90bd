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

export const providers: { [S in ServiceId]: Provider<S> } = {
  // CPU-bound: off the event loop, in the worker-thread pool.
  "text-sentiment": inCpuPool(textSentiment),
  "text-summarize": inCpuPool(textSummarize),
  "language-detect": inCpuPool(languageDetect),
  "token-count": inCpuPool(tokenCount),
  "image-ocr": imageOcr,
  "text-generate": textGenerate,
};

