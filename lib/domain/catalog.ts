// The built-in service catalog (CONTRACT §4): each service's cost and input schema, written once.
// The zod schema validates execute input (422) and produces the published JSON Schema.
import { z } from "zod";
import { limits } from "@/lib/limits";
import { inspectImage } from "./image-input";

const text = z.string().min(1).max(limits.textChars);

export const tokenCountModels = [
  "gpt-4o",
  "gpt-4o-mini",
  "gpt-4.1",
  "gpt-4",
  "gpt-3.5-turbo",
  "o1",
  "o3-mini",
  "text-embedding-3-small",
] as const;

export const serviceInputs = {
  "text-sentiment": z.object({ text }).strict(),
  "text-summarize": z.object({ text, sentences: z.number().int().min(1).max(10).optional() }).strict(),
  "language-detect": z.object({ text }).strict(),
  "token-count": z.object({ text, model: z.enum(tokenCountModels).optional() }).strict(),
  "image-ocr": z
    .object({
      image: z
        .string()
        .min(1)
        .max(limits.ocrBodyBytes)
        .describe("Base64 PNG or JPEG (up to 8 MiB decoded, 50 megapixels), or a data: URL")
        .superRefine((image, ctx) => {
          const inspected = inspectImage(image);
          if (!inspected.ok)
            ctx.addIssue({ code: "custom", message: inspected.message, params: { reason: inspected.code } });
        }),
    })
    .strict(),
  "text-generate": z
    .object({
      prompt: text,
      format: z.enum(["text", "markdown", "json"]).optional(),
      language: z.string().min(2).max(35).optional().describe("Language of the answer, e.g. 'en', 'German'"),
    })
    .strict(),
} as const;

export type ServiceId = keyof typeof serviceInputs;
export type ServiceInput<S extends ServiceId> = z.infer<(typeof serviceInputs)[S]>;

export interface CatalogEntry {
  serviceId: ServiceId;
  name: string;
  description: string;
  creditCost: number;
  /** Decided from configuration when the catalog is seeded. */
  isEnabled: (config: { llmConfigured: boolean }) => boolean;
  /** What a developer is told while the service is disabled. */
  disabledReason?: string;
  /** The execute request's body limit, when not limits.defaultBodyBytes. */
  bodyLimitBytes?: number;
}

export const catalog: CatalogEntry[] = [
  {
    serviceId: "text-sentiment",
    name: "Text sentiment",
    description: "Scores the sentiment of English text (-1 … 1) with the wink-nlp English model, offline.",
    creditCost: 1,
    isEnabled: () => true,
  },
  {
    serviceId: "text-summarize",
    name: "Extractive summary",
    description: "Picks the most representative sentences of a text (extractive, offline NLP).",
    creditCost: 2,
    isEnabled: () => true,
  },
  {
    serviceId: "language-detect",
    name: "Language detection",
    description: "Identifies the language of a text (ISO 639-3 and 639-1 codes) with confidence, offline.",
    creditCost: 1,
    isEnabled: () => true,
  },
  {
    serviceId: "token-count",
    name: "Token count",
    description: "Counts BPE tokens of a text for an OpenAI model's encoding, offline.",
    creditCost: 1,
    isEnabled: () => true,
  },
  {
    serviceId: "image-ocr",
    name: "Image OCR",
    description: "Extracts English text from a PNG or JPEG image (up to 8 MiB) with Tesseract LSTM, offline.",
    creditCost: 5,
    isEnabled: () => true,
    bodyLimitBytes: limits.ocrBodyBytes,
  },
  {
    serviceId: "text-generate",
    name: "Text generation",
    description: "Generates text with the configured OpenAI-compatible LLM; honours format and language.",
    creditCost: 3,
    isEnabled: ({ llmConfigured }) => llmConfigured,
    disabledReason:
      "No LLM endpoint is configured on this server. The operator enables text generation by setting LLM_BASE_URL (with LLM_API_KEY and LLM_MODEL) and restarting.",
  },
];

export const isServiceId = (id: string): id is ServiceId => Object.hasOwn(serviceInputs, id);

/** The published JSON Schema of a service's input. */
export function inputJsonSchema(serviceId: ServiceId): Record<string, unknown> {
  return z.toJSONSchema(serviceInputs[serviceId], { target: "draft-2020-12" }) as Record<string, unknown>;
}

/** Body limit for a service's execute request (the default for an unknown service: it gets a 404 anyway). */
export const bodyLimitOf = (serviceId: string) =>
  catalog.find((entry) => entry.serviceId === serviceId)?.bodyLimitBytes ?? limits.defaultBodyBytes;
