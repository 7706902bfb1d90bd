// Every provider through the whole network (execute → route → node → provider → stored result), on real
// input, checking the structured output and the human summary a developer gets back.
import { countTokens as countCl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { countTokens as countO200k } from "gpt-tokenizer/encoding/o200k_base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  startOpenAiCompatibleServer,
  type ChatCompletionRequest,
  type OpenAiCompatibleServer,
} from "@/lib/network/providers/testing/openai-compatible-server";
import { paddedPng } from "@/lib/network/providers/testing/png";
import { renderTextImage } from "@/lib/network/providers/testing/text-image";
import { execute, submit, telemetry, waitForStatus, type JobView } from "../support/jobs";
import { expectError } from "../support/expect-error";
import { withDeveloper } from "../support/with-developer";

const llmKey = "sk-end-to-end-test";
const llmModel = "acme-chat-1";

let llm: OpenAiCompatibleServer;
beforeAll(async () => {
  llm = await startOpenAiCompatibleServer({ apiKey: llmKey });
});
afterAll(() => llm.close());
const ctx = withDeveloper(() => ({
  env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: llmKey, LLM_MODEL: llmModel, STARTER_CREDITS: "500" },
}));

/** Submits a job and waits for its end; it must complete. */
async function run(serviceId: string, input: Record<string, unknown>): Promise<JobView> {
  const job = await waitForStatus(ctx.dev, ctx.key, (await submit(ctx.dev, ctx.key, serviceId, input)).jobId);
  expect(job, JSON.stringify(job.error)).toMatchObject({ status: "completed", progress: 100 });
  return job;
}

/** The data of the job's PROVIDER_REQUEST events. */
async function providerRequests(jobId: string) {
  return (await telemetry(ctx.dev, ctx.key, jobId))
    .filter((e) => e.type === "PROVIDER_REQUEST")
    .map((e) => e.data ?? {});
}

describe("text-sentiment", () => {
  it("reads a glowing review as positive and a furious one as negative", async () => {
    const [glowing, furious] = await Promise.all([
      run("text-sentiment", {
        text: "I absolutely love this little coffee shop. The staff are friendly, the pastries are delicious, and the espresso is the best I have ever had. I will happily come back every week!",
      }),
      run("text-sentiment", {
        text: "This was a terrible hotel. The room was dirty, the staff were rude, and the noise kept us awake all night. I would never stay here again.",
      }),
    ]);

    expect(glowing.result?.output).toMatchObject({ label: "positive", score: expect.any(Number) });
    expect(glowing.result?.output.score).toBeGreaterThan(0.2);
    expect(glowing.result?.output.sentences).toHaveLength(3);
    expect(glowing.result?.summary).toMatch(
      /^The text reads positive \(score 0\.\d\d on -1 … 1\) across 3 sentences\.$/,
    );

    expect(furious.result?.output).toMatchObject({ label: "negative", score: expect.any(Number) });
    expect(furious.result?.output.score).toBeLessThan(-0.2);
    expect(furious.result?.summary).toMatch(
      /^The text reads negative \(score -0\.\d\d on -1 … 1\) across 3 sentences\.$/,
    );

    expect(await providerRequests(glowing.jobId)).toEqual([
      expect.objectContaining({ provider: "wink-nlp", operation: "sentiment" }),
    ]);
  });
});

describe("text-summarize", () => {
  const article = `The honeybee is one of the most important pollinators on Earth. A single colony can visit millions of flowers in a season, carrying pollen from plant to plant as the bees collect nectar.

Farmers depend on bees for many crops, from almonds to apples. Without bees, the yields of these crops would fall sharply, and food prices would rise. Some farmers rent hives every spring and place them in their orchards while the trees bloom.

In recent years, beekeepers have reported heavy losses of colonies. Scientists point to several causes: parasites such as the varroa mite, pesticides, poor nutrition and the loss of wild flowers. No single cause explains every loss.

Researchers and farmers are working together to protect bee colonies. Planting strips of wild flowers, reducing pesticide use and breeding bees that resist mites are among the most promising steps.`;

  it("keeps the 2 most representative sentences of a 4-paragraph article, in their original order", async () => {
    const job = await run("text-summarize", { text: article, sentences: 2 });
    const output = job.result?.output as {
      summary: string;
      sentences: { index: number; text: string; score: number }[];
      sentenceCount: number;
    };

    expect(output.sentenceCount).toBe(10);
    expect(output.sentences).toHaveLength(2);
    const [first, second] = output.sentences;
    expect(first.index).toBeLessThan(second.index);
    for (const sentence of output.sentences) {
      expect(article).toContain(sentence.text);
      expect(sentence.text).toMatch(/^[A-Z].*[.!?]$/);
    }
    expect(article.indexOf(first.text)).toBeLessThan(article.indexOf(second.text));
    expect(output.summary).toBe(`${first.text} ${second.text}`);
    expect(Math.max(first.score, second.score)).toBe(1);
    expect(job.result?.summary).toBe("Kept the 2 most representative of 10 sentences.");
  });
});

describe("language-detect", () => {
  // One paragraph about a delayed train, written in each language.
  const paragraphs: [iso6391: string, iso6393: string, name: string, text: string][] = [
    [
      "en",
      "eng",
      "English",
      "The morning train to the coast was delayed by almost an hour because of a signal failure near the station. Most passengers waited patiently on the platform, drinking coffee and reading newspapers, while the staff tried to explain what had happened.",
    ],
    [
      "de",
      "deu",
      "German",
      "Der Morgenzug an die Küste hatte wegen einer Signalstörung in der Nähe des Bahnhofs fast eine Stunde Verspätung. Die meisten Fahrgäste warteten geduldig auf dem Bahnsteig, tranken Kaffee und lasen Zeitung, während das Personal zu erklären versuchte, was passiert war.",
    ],
    [
      "fr",
      "fra",
      "French",
      "Le train du matin pour la côte a eu presque une heure de retard à cause d'une panne de signalisation près de la gare. La plupart des voyageurs ont attendu patiemment sur le quai, en buvant un café et en lisant le journal, pendant que le personnel essayait d'expliquer ce qui s'était passé.",
    ],
    [
      "es",
      "spa",
      "Spanish",
      "El tren de la mañana hacia la costa se retrasó casi una hora por una avería en la señalización cerca de la estación. La mayoría de los pasajeros esperó con paciencia en el andén, tomando café y leyendo el periódico, mientras el personal intentaba explicar lo que había pasado.",
    ],
    [
      "it",
      "ita",
      "Italian",
      "Il treno del mattino per la costa ha avuto quasi un'ora di ritardo a causa di un guasto alla segnaletica vicino alla stazione. La maggior parte dei passeggeri ha aspettato con pazienza sul binario, bevendo un caffè e leggendo il giornale, mentre il personale cercava di spiegare che cosa fosse successo.",
    ],
    [
      "pt",
      "por",
      "Portuguese",
      "O comboio da manhã para a costa atrasou quase uma hora por causa de uma avaria na sinalização perto da estação. A maioria dos passageiros esperou com paciência na plataforma, a beber café e a ler o jornal, enquanto os funcionários tentavam explicar o que tinha acontecido.",
    ],
  ];

  it("names the language of paragraphs in English, German, French, Spanish, Italian and Portuguese", async () => {
    const jobs = await Promise.all(paragraphs.map(([, , , text]) => run("language-detect", { text })));
    for (const [i, [iso6391, iso6393, name]] of paragraphs.entries()) {
      const { output, summary } = jobs[i].result ?? { output: {}, summary: "" };
      expect(output).toMatchObject({ iso6391, iso6393, name });
      expect(output.confidence).toBeGreaterThan(0.8);
      expect(output.alternatives).toEqual(
        expect.arrayContaining([expect.objectContaining({ iso6393: expect.any(String) })]),
      );
      expect(summary).toMatch(new RegExp(`^The text is ${name} \\(${iso6391}\\) with confidence (0|1)\\.\\d\\d\\.$`));
    }
  });
});

describe("token-count", () => {
  const text =
    "Tokenizers split text into pieces that a language model reads. Common English words are usually one token each, while rare words, numbers like 1234567 and non-English text such as «Grüße aus München» take more.";

  it("counts with each model's own encoding: gpt-4o on o200k_base, gpt-4 on cl100k_base", async () => {
    const [gpt4o, gpt4] = await Promise.all([
      run("token-count", { text, model: "gpt-4o" }),
      run("token-count", { text, model: "gpt-4" }),
    ]);
    const characters = [...text].length;

    expect(gpt4o.result?.output).toEqual({
      model: "gpt-4o",
      encoding: "o200k_base",
      tokens: countO200k(text),
      characters,
    });
    expect(gpt4.result?.output).toEqual({
      model: "gpt-4",
      encoding: "cl100k_base",
      tokens: countCl100k(text),
      characters,
    });
    for (const job of [gpt4o, gpt4]) {
      const tokens = Number(job.result?.output.tokens);
      // English runs at roughly four characters a token.
      expect(tokens).toBeGreaterThan(characters / 8);
      expect(tokens).toBeLessThan(characters / 2);
    }
    expect(gpt4o.result?.summary).toBe(`${countO200k(text)} tokens for gpt-4o (o200k_base), ${characters} characters.`);
    expect(gpt4.result?.summary).toBe(`${countCl100k(text)} tokens for gpt-4 (cl100k_base), ${characters} characters.`);
    expect(await providerRequests(gpt4.jobId)).toEqual([
      expect.objectContaining({ provider: "gpt-tokenizer", model: "gpt-4", encoding: "cl100k_base" }),
    ]);
  });

  it("counts the classic pangram as 10 tokens with the default model", async () => {
    const job = await run("token-count", { text: "The quick brown fox jumps over the lazy dog." });
    expect(job.result?.output).toMatchObject({ model: "gpt-4o", encoding: "o200k_base", tokens: 10, characters: 44 });
  });
});

// ── image-ocr ─────────────────────────────────────────────────────────────────────────────────────

describe("image-ocr", () => {
  const lines = ["Execution Network reads text", "from images without the internet"];

  it("reads the text of a rendered PNG sent as raw base64 and as a data: URL", async () => {
    const png = await renderTextImage(lines);
    const [raw, dataUrl] = await Promise.all([
      run("image-ocr", { image: png.toString("base64") }),
      run("image-ocr", { image: `data:image/png;base64,${png.toString("base64")}` }),
    ]);
    for (const job of [raw, dataUrl]) {
      const output = job.result?.output as {
        text: string;
        confidence: number;
        lines: { text: string }[];
        format: string;
        width: number;
      };
      expect(output.text).toBe(lines.join("\n"));
      expect(output.lines.map((l) => l.text)).toEqual(lines);
      expect(output).toMatchObject({ format: "png", width: 900 });
      expect(output.confidence).toBeGreaterThan(0.8);
      expect(job.result?.summary).toMatch(/^Read 9 words on 2 lines \(confidence 0\.\d\d\)\.$/);
    }
    expect(await providerRequests(raw.jobId)).toEqual([
      expect.objectContaining({ provider: "tesseract.js", format: "png", width: 900 }),
    ]);
  });

  it("accepts a ~2 MiB image (its body limit is larger than 1 MiB) and still reads it", async () => {
    const big = paddedPng(await renderTextImage(["A large scan still reads fine"]), 2 * 1024 * 1024);
    expect(big.length).toBeGreaterThan(2 * 1024 * 1024);

    const viaExecute = await execute(ctx.dev, ctx.key, "image-ocr", { image: big.toString("base64") });
    expect(viaExecute.status).toBe(202);
    const viaJobs = await ctx.dev.withKey(ctx.key, "/api/developers/jobs", {
      method: "POST",
      body: JSON.stringify({
        type: "developer_job",
        payload: { serviceId: "image-ocr", input: { image: `data:image/png;base64,${big.toString("base64")}` } },
      }),
    });
    expect(viaJobs.status).toBe(202);

    for (const created of [(await viaExecute.json()) as JobView, (await viaJobs.json()) as JobView]) {
      const job = await waitForStatus(ctx.dev, ctx.key, created.jobId);
      expect(job.status).toBe("completed");
      expect(job.result?.output.text).toBe("A large scan still reads fine");
    }
  });
});

describe("the 1 MiB body limit of every other service", () => {
  const overOneMiB = "a ".repeat(512 * 1024 + 16);

  it("execute refuses a body over 1 MiB with 413 PAYLOAD_TOO_LARGE", async () => {
    await expectError(
      await execute(ctx.dev, ctx.key, "text-sentiment", { text: overOneMiB }),
      413,
      "PAYLOAD_TOO_LARGE",
    );
    await expectError(
      await execute(ctx.dev, ctx.key, "language-detect", { text: overOneMiB }),
      413,
      "PAYLOAD_TOO_LARGE",
    );
  });

  it("POST /api/developers/jobs refuses it too, exactly like execute", async () => {
    const res = await ctx.dev.withKey(ctx.key, "/api/developers/jobs", {
      method: "POST",
      body: JSON.stringify({
        type: "developer_job",
        payload: { serviceId: "token-count", input: { text: overOneMiB } },
      }),
    });
    await expectError(res, 413, "PAYLOAD_TOO_LARGE");
  });
});

// ── text-generate ─────────────────────────────────────────────────────────────────────────────────

describe("text-generate against an OpenAI-compatible endpoint", () => {
  const chatRequestWith = (prompt: string) => {
    const recorded = llm.requests.find(
      (r) =>
        r.path === "/v1/chat/completions" &&
        (r.body as ChatCompletionRequest).messages?.some((m) => m.role === "user" && m.content === prompt),
    );
    expect(recorded, `no chat request with the prompt ${JSON.stringify(prompt)}`).toBeDefined();
    return recorded as NonNullable<typeof recorded>;
  };

  it("is an active service of the catalog once an LLM is configured", async () => {
    const services = (await (await fetch(`${ctx.server.baseUrl}/api/marketplace/services`)).json()) as {
      serviceId: string;
      status: string;
    }[];
    expect(services).toContainEqual(expect.objectContaining({ serviceId: "text-generate", status: "active" }));
  });

  it("asks for a JSON answer in German and returns it parsed, with the provider request in telemetry", async () => {
    llm.behave(
      { reply: "normal" },
      { answer: () => JSON.stringify({ greeting: "Guten Morgen", farewell: "Auf Wiedersehen" }) },
    );
    const prompt = "Give me a greeting and a farewell as JSON.";
    const job = await run("text-generate", { prompt, format: "json", language: "de" });

    const request = chatRequestWith(prompt);
    const body = request.body as ChatCompletionRequest;
    expect(request.method).toBe("POST");
    expect(request.headers.authorization).toBe(`Bearer ${llmKey}`);
    expect(body.model).toBe(llmModel);
    expect(body.response_format).toEqual({ type: "json_object" });
    expect(body.messages[0].role).toBe("system");
    expect(body.messages[0].content).toContain("German");
    expect(body.messages[0].content).toMatch(/json/i);
    expect(body.messages.at(-1)).toEqual({ role: "user", content: prompt });

    const output = job.result?.output as {
      text: string;
      format: string;
      model: string;
      finishReason: string;
      json: unknown;
      usage: Record<string, number>;
    };
    expect(output).toMatchObject({
      format: "json",
      model: llmModel,
      finishReason: "stop",
      json: { greeting: "Guten Morgen", farewell: "Auf Wiedersehen" },
    });
    expect(JSON.parse(output.text)).toEqual(output.json);
    expect(output.usage.totalTokens).toBe(output.usage.promptTokens + output.usage.completionTokens);
    expect(job.result?.summary).toBe(`${llmModel} wrote a JSON answer using ${output.usage.totalTokens} tokens.`);

    expect(await providerRequests(job.jobId)).toEqual([
      expect.objectContaining({
        provider: "openai-compatible",
        model: llmModel,
        endpoint: new URL(llm.baseUrl).host,
        status: 200,
        finishReason: "stop",
        totalTokens: output.usage.totalTokens,
        latencyMs: expect.any(Number),
      }),
    ]);
  });

  it("asks for plain text in the language named, without a JSON response format", async () => {
    llm.behave({ reply: "normal" }, { answer: () => "Le train part à huit heures." });
    const prompt = "When does the train leave?";
    const job = await run("text-generate", { prompt, language: "French" });

    const body = chatRequestWith(prompt).body as ChatCompletionRequest;
    expect(body.response_format).toBeUndefined();
    expect(body.messages[0]).toMatchObject({ role: "system", content: expect.stringContaining("French") });
    expect(job.result?.output).toMatchObject({ text: "Le train part à huit heures.", format: "text", model: llmModel });
    expect(job.result?.summary).toMatch(new RegExp(`^${llmModel} wrote 6 words using \\d+ tokens\\.$`));
  });
});
