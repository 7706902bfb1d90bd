// token-count: counts the BPE tokens of a text with the encoding of an OpenAI model (gpt-tokenizer), offline.
import { DEFAULT_ENCODING, modelToEncodingMap, type ModelName } from "gpt-tokenizer/mapping";
import type { tokenCountModels } from "@/lib/domain/catalog";
import type { Provider } from "./types";

type TokenCountModel = (typeof tokenCountModels)[number];
const defaultModel: TokenCountModel = "gpt-4o";

// gpt-tokenizer's map lists only the models that do not use its default (o200k_base: gpt-4o, gpt-4.1, o1,
// o3 …); anything absent is on the default encoding.
export function encodingOf(model: TokenCountModel): string {
  return (modelToEncodingMap as Partial<Record<ModelName, string>>)[model] ?? DEFAULT_ENCODING;
}

// Each encoding's rank table is megabytes of data; load only the ones asked for, once: a dynamic import()
// of a module already loaded still goes through the module loader (and its hooks thread under tsx), which
// cost a hundred times the counting itself.
type Encoder = { countTokens: (text: string, options: object) => number };
const once = (load: () => Promise<Encoder>) => {
  let loaded: Promise<Encoder> | undefined;
  return () => (loaded ??= load().catch((error: unknown) => ((loaded = undefined), Promise.reject(error))));
};
const encoders: Record<string, () => Promise<Encoder>> = {
  o200k_base: once(() => import("gpt-tokenizer/encoding/o200k_base")),
  cl100k_base: once(() => import("gpt-tokenizer/encoding/cl100k_base")),
};

export const tokenCount: Provider<"token-count"> = {
  serviceId: "token-count",

  async warmUp() {
    await encoders[DEFAULT_ENCODING]();
  },

  async run(input, ctx) {
    ctx.signal.throwIfAborted();
    const { text, model = defaultModel } = input;
    const encoding = encodingOf(model);
    const loadEncoder = encoders[encoding];
    if (!loadEncoder) throw new Error(`No encoder is bundled for ${encoding} (model ${model}).`);

    const started = performance.now();
    const { countTokens } = await loadEncoder();
    ctx.signal.throwIfAborted();
    ctx.progress(40);
    // User text may contain "<|endoftext|>" and friends: count them as the plain text they are, as the
    // API does for message content, instead of refusing the text.
    const tokens = countTokens(text, { disallowedSpecial: new Set() });
    ctx.providerRequest({
      provider: "gpt-tokenizer",
      model,
      encoding,
      characters: text.length,
      latencyMs: Math.round(performance.now() - started),
    });
    ctx.progress(90);

    const characters = [...text].length;
    return {
      summary: `${tokens} token${tokens === 1 ? "" : "s"} for ${model} (${encoding}), ${characters} character${characters === 1 ? "" : "s"}.`,
      output: { model, encoding, tokens, characters },
    };
  },
};
