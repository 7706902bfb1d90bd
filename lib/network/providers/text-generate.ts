// text-generate: one chat completion from the configured OpenAI-compatible endpoint (LLM_BASE_URL,
// LLM_API_KEY, LLM_MODEL), with the answer's format and language set in the system prompt.
import type { ServiceInput } from "@/lib/domain/catalog";
import { env } from "@/lib/env";
import { ProviderError, type Provider } from "./types";

export type AnswerFormat = NonNullable<ServiceInput<"text-generate">["format"]>;

const formatInstructions: Record<AnswerFormat, string> = {
  text: "Answer in plain text, without Markdown or other markup.",
  markdown: "Format the answer as GitHub-flavoured Markdown.",
  json: "Answer with exactly one valid JSON object and nothing else: no prose, no code fences.",
};

/** "de" → "German (de)"; a name such as "German" is used as given. */
export function languageName(language: string): string {
  const tag = language.trim();
  if (/^[a-z]{2,3}(-[a-z0-9]{2,8})*$/i.test(tag)) {
    try {
      const name = new Intl.DisplayNames(["en"], { type: "language", fallback: "none" }).of(tag);
      if (name) return `${name} (${tag})`;
    } catch {
      // not a valid BCP 47 tag after all: use it as written
    }
  }
  return tag;
}

export function systemPrompt(format: AnswerFormat, language?: string): string {
  const parts = ["You are a helpful assistant.", formatInstructions[format]];
  // JSON.stringify quotes the caller's value so it reads as a value, not as further instructions.
  if (language) parts.push(`Write the answer in this language: ${JSON.stringify(languageName(language))}.`);
  return parts.join(" ");
}

interface ChatCompletion {
  model?: string;
  choices?: { message?: { content?: string | null; refusal?: string | null }; finish_reason?: string | null }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number };
}

const snippet = (text: string, max = 300) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** The provider's own error message, from `{ "error": { "message" } }` or the raw body. */
function errorMessageOf(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === "object" && "error" in parsed) {
      const error = parsed.error;
      if (error && typeof error === "object" && "message" in error && typeof error.message === "string")
        return snippet(error.message);
      if (typeof error === "string") return snippet(error);
    }
  } catch {
    // not JSON: fall through to the raw text
  }
  return snippet(body.trim()) || "no message";
}

/** Some compatible servers wrap JSON in a Markdown fence even in JSON mode. */
function parseJsonAnswer(content: string): unknown {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/i.exec(content);
  return JSON.parse(fenced ? fenced[1] : content);
}

const isRetryableStatus = (status: number) => status === 408 || status === 429 || status >= 500;

export const textGenerate: Provider<"text-generate"> = {
  serviceId: "text-generate",

  async run(input, ctx) {
    ctx.signal.throwIfAborted();
    const { LLM_BASE_URL: baseUrl, LLM_API_KEY: apiKey, LLM_MODEL: model } = env();
    if (!baseUrl)
      throw new ProviderError("PROVIDER_NOT_CONFIGURED", "No LLM endpoint is configured (LLM_BASE_URL).", false);

    const { prompt, format = "text", language } = input;
    const endpoint = new URL(`${baseUrl.replace(/\/+$/, "")}/chat/completions`);
    const body = {
      model,
      messages: [
        { role: "system", content: systemPrompt(format, language) },
        { role: "user", content: prompt },
      ],
      ...(format === "json" ? { response_format: { type: "json_object" } } : {}),
    };
    ctx.progress(10);

    const started = performance.now();
    const record = (data: Record<string, unknown>) =>
      ctx.providerRequest({
        provider: "openai-compatible",
        model,
        endpoint: endpoint.host,
        latencyMs: Math.round(performance.now() - started),
        ...data,
      });

    let response: Response;
    let responseText: string;
    try {
      response = await fetch(endpoint, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
        },
        body: JSON.stringify(body),
        signal: ctx.signal,
      });
      responseText = await response.text();
    } catch (error) {
      if (ctx.signal.aborted) {
        record({ error: "aborted" });
        throw ctx.signal.reason;
      }
      const reason =
        error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
      record({ error: "network" });
      throw new ProviderError(
        "PROVIDER_UNAVAILABLE",
        `The LLM endpoint ${endpoint.host} could not be reached: ${reason}`,
        true,
      );
    }
    ctx.progress(85);

    if (!response.ok) {
      record({ status: response.status });
      const message = `The LLM endpoint answered ${response.status}: ${errorMessageOf(responseText)}`;
      if (isRetryableStatus(response.status)) throw new ProviderError("PROVIDER_UNAVAILABLE", message, true);
      throw new ProviderError("PROVIDER_REJECTED", message, false);
    }

    let parsed: unknown;
    try {
      parsed = JSON.parse(responseText);
    } catch {
      // handled below, like any other body that is not a JSON object
    }
    if (!parsed || typeof parsed !== "object") {
      record({ status: response.status, error: "invalid-json" });
      throw new ProviderError(
        "PROVIDER_BAD_RESPONSE",
        `The LLM endpoint returned a body that is not a JSON object: ${snippet(responseText, 120)}`,
        true,
      );
    }
    const completion = parsed as ChatCompletion;
    const choice = completion.choices?.[0];
    const usage = {
      promptTokens: completion.usage?.prompt_tokens,
      completionTokens: completion.usage?.completion_tokens,
      totalTokens: completion.usage?.total_tokens,
    };
    record({ status: response.status, responseModel: completion.model, finishReason: choice?.finish_reason, ...usage });

    const content = choice?.message?.content;
    if (typeof content !== "string") {
      const refusal = choice?.message?.refusal;
      if (refusal) throw new ProviderError("PROVIDER_REJECTED", `The model refused: ${snippet(refusal)}`, false);
      throw new ProviderError("PROVIDER_BAD_RESPONSE", "The LLM endpoint's reply has no message content.", true);
    }

    const output: Record<string, unknown> = {
      text: content,
      format,
      model: completion.model ?? model,
      finishReason: choice?.finish_reason ?? null,
      usage,
    };
    if (format === "json") {
      try {
        output.json = parseJsonAnswer(content);
      } catch {
        // A model can miss JSON now and then (or be cut off by its length limit); another attempt may not.
        throw new ProviderError(
          "PROVIDER_BAD_RESPONSE",
          `The model was asked for JSON but answered something else${choice?.finish_reason === "length" ? " (cut off at its length limit)" : ""}: ${snippet(content, 120)}`,
          true,
        );
      }
    }
    ctx.progress(95);

    const words = content.trim().split(/\s+/).filter(Boolean).length;
    return {
      summary: `${String(output.model)} wrote ${format === "json" ? "a JSON answer" : `${words} word${words === 1 ? "" : "s"}`}${usage.totalTokens !== undefined ? ` using ${usage.totalTokens} tokens` : ""}${choice?.finish_reason === "length" ? ", cut off at its length limit" : ""}.`,
      output,
    };
  },
};
