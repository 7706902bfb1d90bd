// The playground reads each service's published input schema: one field per property with the right
// widget, and validation that reports what the API's own check reports (same paths, same messages).
import { describe, expect, it } from "vitest";
import { codeExamples } from "@/components/playground/code-examples";
import { errorsByField, fieldsOf, validatorFor } from "@/components/playground/input-schema";
import { catalog, inputJsonSchema, serviceInputs } from "@/lib/domain/catalog";

const issuesOf = (serviceId: keyof typeof serviceInputs, input: unknown) => {
  const parsed = serviceInputs[serviceId].safeParse(input);
  return parsed.success
    ? []
    : parsed.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message }));
};

describe("fields from the input schema", () => {
  it("gives each service one field per top-level property, with a widget for its type", () => {
    const kinds = Object.fromEntries(
      catalog.map(({ serviceId }) => [
        serviceId,
        fieldsOf(inputJsonSchema(serviceId)).map((f) => `${f.name}:${f.kind}${f.required ? "" : "?"}`),
      ]),
    );
    expect(kinds).toEqual({
      "text-sentiment": ["text:textarea"],
      "text-summarize": ["text:textarea", "sentences:number?"],
      "language-detect": ["text:textarea"],
      "token-count": ["text:textarea", "model:select?"],
      "image-ocr": ["image:image"],
      "text-generate": ["prompt:textarea", "format:select?", "language:text?"],
    });
  });

  it("puts required properties first even when the stored schema (jsonb) reordered its keys", () => {
    const stored = {
      type: "object",
      properties: { format: { type: "string" }, prompt: { type: "string" } },
      required: ["prompt"],
    };
    expect(fieldsOf(stored).map((f) => f.name)).toEqual(["prompt", "format"]);
  });

  it("keeps the bounds of numbers and the options of enums", () => {
    const [, sentences] = fieldsOf(inputJsonSchema("text-summarize"));
    expect(sentences).toMatchObject({ minimum: 1, maximum: 10, integer: true });
    const [, format] = fieldsOf(inputJsonSchema("text-generate"));
    expect(format.options).toEqual(["text", "markdown", "json"]);
  });
});

describe("validation before Run", () => {
  const cases: [keyof typeof serviceInputs, unknown][] = [
    ["text-sentiment", { text: "" }],
    ["text-sentiment", { text: "fine" }],
    ["text-summarize", { text: "x", sentences: 11 }],
    ["text-summarize", { text: "x", sentences: 2.5 }],
    ["token-count", { text: "x", model: "gpt-9" }],
    ["image-ocr", {}],
    ["text-generate", { prompt: "hi", language: "x", extra: true }],
  ];

  it.each(cases)("%s %j: the same issues as the API's check", (serviceId, input) => {
    const validate = validatorFor(inputJsonSchema(serviceId));
    expect(validate(input as Record<string, unknown>)).toEqual(issuesOf(serviceId, input));
  });

  it('groups issues by their field, with whole-input issues under ""', () => {
    expect(
      errorsByField([
        { path: "sentences", message: "too big" },
        { path: "", message: "Unrecognized key" },
      ]),
    ).toEqual({
      sentences: ["too big"],
      "": ["Unrecognized key"],
    });
  });
});

describe("code examples", () => {
  it("carry the current input, a key placeholder and a fresh idempotency key, never a secret", () => {
    const { curl, client } = codeExamples("https://api.example.com", "text-sentiment", { text: "it's great" });
    expect(curl).toContain("https://api.example.com/api/marketplace/services/text-sentiment/execute");
    expect(curl).toContain(`-d '{"input":{"text":"it'\\''s great"}}'`);
    expect(curl).toContain("x-api-key: $EXECUTION_NETWORK_API_KEY");
    expect(curl).toContain("Idempotency-Key: $(uuidgen)");
    expect(client).toContain('client.execute(\n  "text-sentiment",');
    expect(client).toContain("idempotencyKey: randomUUID()");
    expect(`${curl}${client}`).not.toMatch(/dev_[0-9A-Za-z]{8}/);
  });

  it("shorten long values such as an image's base64", () => {
    const examples = codeExamples("http://127.0.0.1:3000", "image-ocr", { image: "A".repeat(10_000) });
    expect(examples.shortened).toBe(true);
    expect(examples.curl.length).toBeLessThan(1_000);
  });
});
