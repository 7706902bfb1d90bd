import { afterAll, describe, expect, it } from "vitest";
import { decodeImage, imageOcr } from "./image-ocr";
import { pngHeaderClaiming } from "./testing/png";
import { abortedSignal, isNonDecreasing, recordingContext } from "./testing/recording-context";
import { renderTextImage } from "./testing/text-image";
import { ProviderError } from "./types";

interface OcrOutput {
  text: string;
  confidence: number;
  lines: { text: string; confidence: number; bbox: { x0: number; y0: number; x1: number; y1: number } }[];
  words: { text: string; confidence: number }[];
  format: string;
  width: number;
  height: number;
}

const lines = ["Execution Network reads text", "from images without the internet"];

async function ocr(image: string, signal?: AbortSignal) {
  const ctx = recordingContext(signal);
  const result = await imageOcr.run({ image }, ctx);
  return { ...result, output: result.output as unknown as OcrOutput, ctx };
}

async function failureOf(image: string): Promise<ProviderError> {
  const error = await imageOcr.run({ image }, recordingContext()).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

afterAll(() => imageOcr.close?.());

describe("image-ocr", () => {
  it("reads the text of a rendered PNG sent as base64, line by line", async () => {
    const png = await renderTextImage(lines);
    const { output, summary, ctx } = await ocr(png.toString("base64"));

    expect(output.text).toBe(lines.join("\n"));
    expect(output.lines.map((l) => l.text)).toEqual(lines);
    expect(output.words.map((w) => w.text)).toEqual(lines.join(" ").split(" "));
    expect(output.confidence).toBeGreaterThan(0.8);
    expect(output.confidence).toBeLessThanOrEqual(1);
    expect(output).toMatchObject({ format: "png", width: 900 });
    expect(output.lines[0].bbox.y1).toBeLessThan(output.lines[1].bbox.y0);
    expect(summary).toMatch(/^Read 9 words on 2 lines \(confidence 0\.\d\d\)\.$/);

    expect(ctx.providerRequests).toEqual([
      expect.objectContaining({ provider: "tesseract.js", format: "png", width: 900, latencyMs: expect.any(Number) }),
    ]);
    expect(ctx.progressReports.length).toBeGreaterThanOrEqual(3);
    expect(isNonDecreasing(ctx.progressReports)).toBe(true);
  });

  it("reads a JPEG sent as a data: URL", async () => {
    const jpeg = await renderTextImage(["Invoice 2041 total 318 EUR"], { format: "jpeg" });
    const { output } = await ocr(`data:image/jpeg;base64,${jpeg.toString("base64")}`);
    expect(output.text).toBe("Invoice 2041 total 318 EUR");
    expect(output.format).toBe("jpeg");
  });

  it("runs jobs side by side on its pool and keeps them apart", async () => {
    const texts = ["First page of three", "Second page of three", "Third page of three"];
    const images = await Promise.all(texts.map((t) => renderTextImage([t])));
    const results = await Promise.all(images.map((png) => ocr(png.toString("base64"))));
    expect(results.map((r) => r.output.text)).toEqual(texts);
  });

  it("lets a job waiting for a busy pool go as soon as it is aborted", async () => {
    const images = await Promise.all(["Busy one", "Busy two", "Waiting three"].map((t) => renderTextImage([t])));
    const controller = new AbortController();
    const busy = images.slice(0, 2).map((png) => ocr(png.toString("base64")));
    const waiting = ocr(images[2].toString("base64"), controller.signal);
    controller.abort(new Error("cancelled while queued"));

    await expect(waiting).rejects.toThrow("cancelled while queued");
    expect((await Promise.all(busy)).map((r) => r.output.text)).toEqual(["Busy one", "Busy two"]);
  });

  it("returns empty text for a blank image", async () => {
    const blank = await renderTextImage([""]);
    const { output, summary } = await ocr(blank.toString("base64"));
    expect(output.text).toBe("");
    expect(output.lines).toEqual([]);
    expect(summary).toBe("No text was found in the image.");
  });

  it.each([
    ["a GIF", Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00\x00;", "latin1").toString("base64")],
    ["plain text", Buffer.from("hello, I am not an image").toString("base64")],
    ["a data: URL of another type", `data:image/gif;base64,${Buffer.from("GIF89a").toString("base64")}`],
    ["text that is not base64", "this is *not* base64!"],
    [
      "a PNG cut off after its signature",
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]).toString("base64"),
    ],
  ])("refuses %s as a non-retryable INVALID_IMAGE", async (_, image) => {
    const error = await failureOf(image);
    expect(error).toMatchObject({ code: "INVALID_IMAGE", retryable: false });
  });

  it("refuses a PNG whose data is corrupt, and keeps working afterwards", async () => {
    const png = await renderTextImage(["Still working"]);
    const corrupt = Buffer.concat([png.subarray(0, 40), Buffer.alloc(200, 7)]);
    const error = await failureOf(corrupt.toString("base64"));
    expect(error).toMatchObject({ code: "INVALID_IMAGE", retryable: false });

    const { output } = await ocr(png.toString("base64"));
    expect(output.text).toBe("Still working");
  });

  it("refuses more than 8 MiB of image as a non-retryable IMAGE_TOO_LARGE, before decoding it", async () => {
    const oversized = Buffer.alloc(8 * 1024 * 1024 + 1);
    pngHeaderClaiming(1000, 1000).copy(oversized);
    const error = await failureOf(oversized.toString("base64"));
    expect(error).toMatchObject({ code: "IMAGE_TOO_LARGE", retryable: false });
  });

  it("refuses a small file that declares a gigantic bitmap", async () => {
    const error = await failureOf(pngHeaderClaiming(100_000, 100_000).toString("base64"));
    expect(error).toMatchObject({ code: "IMAGE_TOO_LARGE", retryable: false });
    expect(error.message).toContain("100000×100000");
  });

  it("reads the dimensions of PNG and JPEG files from their headers", async () => {
    const png = await renderTextImage(["x"], { width: 321 });
    const jpeg = await renderTextImage(["x", "y"], { width: 123, format: "jpeg" });
    expect(decodeImage(png.toString("base64"))).toMatchObject({ format: "png", width: 321 });
    expect(decodeImage(jpeg.toString("base64"))).toMatchObject({
      format: "jpeg",
      width: 123,
      height: Math.round(36 * 1.6) * 2 + 72,
    });
  });

  it("rejects at once when the signal is already aborted", async () => {
    const png = await renderTextImage(lines);
    const signal = abortedSignal();
    await expect(ocr(png.toString("base64"), signal)).rejects.toBe(signal.reason);
  });

  it("starts afresh after close(), warmed up or not", async () => {
    const png = await renderTextImage(["Back again"]);
    await imageOcr.close?.();
    expect((await ocr(png.toString("base64"))).output.text).toBe("Back again");
    await imageOcr.close?.();
    await imageOcr.warmUp?.();
    expect((await ocr(png.toString("base64"))).output.text).toBe("Back again");
  });

  it("stops a recognition in progress when aborted, and the pool recovers", async () => {
    const page = await renderTextImage(
      Array.from({ length: 30 }, (_, i) => `Line ${i + 1} of a long page that takes a while to read`),
      { width: 1400 },
    );
    // How long the whole page takes on this machine now: the aborted run must end well before that.
    const fullStart = performance.now();
    await ocr(page.toString("base64"));
    const fullMs = performance.now() - fullStart;

    const controller = new AbortController();
    const reason = new Error("job cancelled");
    const started = performance.now();
    const running = ocr(page.toString("base64"), controller.signal);
    setTimeout(() => controller.abort(reason), 50);
    await expect(running).rejects.toBe(reason);
    expect(performance.now() - started).toBeLessThan(fullMs / 2);

    const { output } = await ocr((await renderTextImage(["After the abort"])).toString("base64"));
    expect(output.text).toBe("After the abort");
  });
});
