import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startOpenAiCompatibleServer, type OpenAiCompatibleServer } from "./testing/openai-compatible-server";
import { abortedSignal, recordingContext } from "./testing/recording-context";
import { textGenerate } from "./text-generate";
import { ProviderError } from "./types";

const apiKey = "sk-test-4f1c2d9e8b7a6f5e4d3c2b1a";
let server: OpenAiCompatibleServer;

// env() reads process.env once, on first use: configure it before any provider runs.
beforeAll(async () => {
  server = await startOpenAiCompatibleServer({ apiKey });
  process.env.LLM_BASE_URL = server.baseUrl;
  process.env.LLM_API_KEY = apiKey;
  process.env.LLM_MODEL = "gpt-4o-mini";
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.behave({ reply: "normal" });
});

async function failureOf(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe("text-generate", () => {
  it("sends one chat completion with the configured model and key, and returns the answer with its usage", async () => {
    const ctx = recordingContext();
    const result = await textGenerate.run({ prompt: "Name a prime number." }, ctx);

    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/v1/chat/completions");
    expect(request.headers.authorization).toBe(`Bearer ${apiKey}`);
    expect(request.body).toMatchObject({
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: expect.stringContaining("plain text") },
        { role: "user", content: "Name a prime number." },
      ],
    });
    expect(request.body).not.toHaveProperty("response_format");

    expect(result.output).toMatchObject({
      text: "You asked: Name a prime number.",
      format: "text",
      model: "gpt-4o-mini",
      finishReason: "stop",
      usage: {
        promptTokens: expect.any(Number),
        completionTokens: expect.any(Number),
        totalTokens: expect.any(Number),
      },
    });
    expect(result.summary).toMatch(/gpt-4o-mini wrote 6 words using \d+ tokens\./);
  });

  it("records the provider request with host, model, latency and tokens, and never the API key", async () => {
    const ctx = recordingContext();
    await textGenerate.run({ prompt: "Say hello." }, ctx);

    expect(ctx.providerRequests).toHaveLength(1);
    expect(ctx.providerRequests[0]).toMatchObject({
      provider: "openai-compatible",
      model: "gpt-4o-mini",
      endpoint: new URL(server.baseUrl).host,
      status: 200,
      latencyMs: expect.any(Number),
      promptTokens: expect.any(Number),
      completionTokens: expect.any(Number),
      totalTokens: expect.any(Number),
    });
    expect(JSON.stringify(ctx.providerRequests)).not.toContain(apiKey);
    expect(ctx.progressReports.length).toBeGreaterThanOrEqual(2);
  });

  it("asks for a JSON object in JSON mode and returns it parsed", async () => {
    const result = await textGenerate.run(
      { prompt: "Give me a JSON object with a field answer.", format: "json" },
      recordingContext(),
    );

    const body = server.requests[0].body as { response_format: unknown; messages: { content: string }[] };
    expect(body.response_format).toEqual({ type: "json_object" });
    expect(body.messages[0].content).toMatch(/JSON object/);
    expect(result.output.json).toEqual({ answer: "ok", prompt: "Give me a JSON object with a field answer." });
  });

  it("accepts a JSON answer wrapped in a Markdown fence, as some compatible servers send", async () => {
    server.behave({ reply: "normal" }, { answer: () => '```json\n{"city": "Lyon"}\n```' });
    const result = await textGenerate.run({ prompt: "Where? Answer in JSON.", format: "json" }, recordingContext());
    expect(result.output.json).toEqual({ city: "Lyon" });
  });

  it("fails retryably when the model answers JSON mode with something that is not JSON", async () => {
    server.behave({ reply: "normal" }, { answer: () => "Sure! Here is your object: {city: Lyon" });
    const error = await failureOf(
      textGenerate.run({ prompt: "Where? Answer in JSON.", format: "json" }, recordingContext()),
    );
    expect(error).toMatchObject({ code: "PROVIDER_BAD_RESPONSE", retryable: true });
  });

  it("states the Markdown format and the answer's language in the system prompt", async () => {
    await textGenerate.run({ prompt: "Explain recursion.", format: "markdown", language: "de" }, recordingContext());
    await textGenerate.run({ prompt: "Explain recursion.", language: "Brazilian Portuguese" }, recordingContext());

    const systemPrompts = server.requests.map(
      (r) => (r.body as { messages: { content: string }[] }).messages[0].content,
    );
    expect(systemPrompts[0]).toContain("Markdown");
    expect(systemPrompts[0]).toContain('"German (de)"');
    expect(systemPrompts[1]).toContain('"Brazilian Portuguese"');
  });

  it.each([400, 401, 404])(
    "turns HTTP %i into a non-retryable PROVIDER_REJECTED carrying the endpoint's message",
    async (status) => {
      server.behave({ reply: "error", status, message: `refused with ${status}` });
      const ctx = recordingContext();
      const error = await failureOf(textGenerate.run({ prompt: "Hi" }, ctx));

      expect(error).toMatchObject({ code: "PROVIDER_REJECTED", retryable: false });
      expect(error.message).toContain(`refused with ${status}`);
      expect(ctx.providerRequests).toEqual([expect.objectContaining({ status })]);
    },
  );

  it.each([408, 429, 500, 503])("turns HTTP %i into a retryable PROVIDER_UNAVAILABLE", async (status) => {
    server.behave({ reply: "error", status });
    const error = await failureOf(textGenerate.run({ prompt: "Hi" }, recordingContext()));
    expect(error).toMatchObject({ code: "PROVIDER_UNAVAILABLE", retryable: true });
  });

  it("turns a dropped connection into a retryable PROVIDER_UNAVAILABLE", async () => {
    server.behave({ reply: "disconnect" });
    const error = await failureOf(textGenerate.run({ prompt: "Hi" }, recordingContext()));
    expect(error).toMatchObject({ code: "PROVIDER_UNAVAILABLE", retryable: true });
  });

  it("turns a 200 reply that is not a chat completion into a retryable PROVIDER_BAD_RESPONSE", async () => {
    server.behave({ reply: "raw", status: 200, body: "<html><body>Gateway login</body></html>" });
    const error = await failureOf(textGenerate.run({ prompt: "Hi" }, recordingContext()));
    expect(error).toMatchObject({ code: "PROVIDER_BAD_RESPONSE", retryable: true });
    expect(error.message).toContain("Gateway login");
  });

  it("stops waiting for a slow endpoint as soon as the job is aborted, with the abort's reason", async () => {
    server.behave({ reply: "slow", delayMs: 10_000 });
    const controller = new AbortController();
    const reason = new Error("job timed out");
    setTimeout(() => controller.abort(reason), 100);

    const started = performance.now();
    const ctx = recordingContext(controller.signal);
    await expect(textGenerate.run({ prompt: "Hi" }, ctx)).rejects.toBe(reason);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(server.requests).toHaveLength(1);
    expect(ctx.providerRequests).toEqual([expect.objectContaining({ error: "aborted" })]);
  });

  it("rejects at once, without calling the endpoint, when the signal is already aborted", async () => {
    const signal = abortedSignal();
    await expect(textGenerate.run({ prompt: "Hi" }, recordingContext(signal))).rejects.toBe(signal.reason);
    expect(server.requests).toHaveLength(0);
  });
});
