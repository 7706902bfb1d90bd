// image-ocr: extracts English text from a PNG or JPEG with Tesseract (tesseract.js, LSTM engine), offline.
// The traineddata comes from the @tesseract.js-data/eng package; a small pool of workers is kept warm.
import path from "node:path";

// Taken from the runtime, not imported, so that no bundler rewrites its resolve().
const { createRequire } = process.getBuiltinModule("node:module") as typeof import("node:module");
import { createWorker, OEM, type Worker as TesseractWorker, type Page, type Bbox } from "tesseract.js";
import { inspectImage, type DecodedImage } from "@/lib/domain/image-input";
import { providerFiles } from "./files";
import { ProviderError, type Provider, type ProviderContext } from "./types";

const poolSize = 2;
const maxWordsReported = 2_000;

/**
 * The folder holding eng.traineddata.gz ("best_int": LSTM-only and small). Resolved from the project root
 * (or the node package's folder) at run time: inside a Next.js server bundle `createRequire(import.meta.url).resolve` is rewritten by the
 * bundler into a module id, so the path must not be resolved relative to this file.
 */
function englishLangPath(): string {
  const packageJson = createRequire(path.join(providerFiles().resolveFrom, "package.json")).resolve(
    "@tesseract.js-data/eng/package.json",
  );
  return path.join(path.dirname(packageJson), "4.0.0_best_int");
}

// ---------------------------------------------------------------------------------------------------
// Input: base64 or data: URL → bytes, checked before Tesseract sees them.

const invalid = (message: string) => new ProviderError("INVALID_IMAGE", message, false);

/** Decodes the `image` input with the same checks as submission (lib/domain/image-input.ts). */
export function decodeImage(image: string): DecodedImage {
  const inspected = inspectImage(image);
  if (!inspected.ok)
    throw inspected.code === "IMAGE_TOO_LARGE"
      ? new ProviderError(inspected.code, inspected.message, false)
      : invalid(inspected.message);
  return inspected.image;
}

// ---------------------------------------------------------------------------------------------------
// The worker pool: up to `poolSize` Tesseract workers, started on demand and reused.

interface PooledWorker {
  worker: TesseractWorker;
  /** Where the current job's recognition progress goes (0–1). */
  onProgress?: (fraction: number) => void;
}

interface Waiter {
  resolve: (pooled: PooledWorker) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal;
  onAbort: () => void;
}

class OcrWorkerPool {
  /** Every live worker, busy or idle. */
  private workers = new Set<PooledWorker>();
  private idle: PooledWorker[] = [];
  private waiting: Waiter[] = [];
  /** Workers being started; they count towards the size. */
  private pending = 0;
  // Workers start one after another: starting is CPU-bound, and two at once only delays the first.
  private startQueue: Promise<unknown> = Promise.resolve();
  /** Bumped by close(), so a worker that finishes starting afterwards is not kept. */
  private generation = 0;

  constructor(private readonly size: number) {}

  async acquire(signal: AbortSignal): Promise<PooledWorker> {
    signal.throwIfAborted();
    const ready = this.idle.pop();
    if (ready) return ready;
    if (this.workers.size + this.pending < this.size) return this.startWorker();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          this.waiting = this.waiting.filter((w) => w !== waiter);
          reject(signal.reason);
        },
      };
      signal.addEventListener("abort", waiter.onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  release(pooled: PooledWorker): void {
    pooled.onProgress = undefined;
    if (!this.workers.has(pooled)) return; // the pool was closed meanwhile
    const next = this.nextWaiter();
    if (next) next.resolve(pooled);
    else this.idle.push(pooled);
  }

  /** Terminates a worker that was stopped mid-job or failed; a waiting job gets a fresh one. */
  discard(pooled: PooledWorker): void {
    if (this.workers.delete(pooled)) void pooled.worker.terminate().catch(() => undefined);
    const next = this.nextWaiter();
    if (next) this.startWorker().then(next.resolve, next.reject);
  }

  async warmUp(): Promise<void> {
    if (this.workers.size + this.pending === 0) this.release(await this.startWorker());
  }

  /** Terminates every worker; a later job starts new ones. */
  async close(): Promise<void> {
    this.generation++;
    const workers = [...this.workers];
    this.workers.clear();
    this.idle = [];
    for (const waiter of this.waiting.splice(0)) waiter.reject(new Error("The OCR worker pool was closed."));
    await Promise.allSettled(workers.map((w) => w.worker.terminate()));
  }

  private nextWaiter(): Waiter | undefined {
    const next = this.waiting.shift();
    next?.signal.removeEventListener("abort", next.onAbort);
    return next;
  }

  private startWorker(): Promise<PooledWorker> {
    this.pending++;
    const generation = this.generation;
    const started = this.startQueue.then(async () => {
      const routing: Pick<PooledWorker, "onProgress"> = {};
      const worker = await createWorker("eng", OEM.LSTM_ONLY, {
        langPath: englishLangPath(),
        gzip: true,
        // The traineddata is read from node_modules at each start (a gunzip of ~3 MB, a few ms): an on-disk
        // cache would save nothing and could go stale or be half-written by two workers at once.
        cacheMethod: "none",
        logger: (message) => {
          if (message.status === "recognizing text") routing.onProgress?.(message.progress);
        },
        // Without a handler tesseract.js also rethrows every failed job (e.g. an undecodable image) as an
        // uncaught exception, which kills the process; the job's promise is rejected either way.
        errorHandler: () => undefined,
      });
      if (generation !== this.generation) {
        await worker.terminate();
        throw new Error("The OCR worker pool was closed.");
      }
      const pooled: PooledWorker = Object.assign(routing, { worker });
      this.workers.add(pooled);
      return pooled;
    });
    const settled = started.finally(() => this.pending--);
    this.startQueue = settled.catch(() => undefined);
    return settled;
  }
}

const pool = new OcrWorkerPool(poolSize);

// ---------------------------------------------------------------------------------------------------

const toBox = (b: Bbox) => ({ x0: b.x0, y0: b.y0, x1: b.x1, y1: b.y1 });
const confidenceOf = (percent: number) => Math.round(percent * 10) / 1000;

function linesAndWords(page: Page) {
  const lines = (page.blocks ?? []).flatMap((block) => block.paragraphs.flatMap((paragraph) => paragraph.lines));
  return {
    lines: lines
      .map((line) => ({ text: line.text.trim(), confidence: confidenceOf(line.confidence), bbox: toBox(line.bbox) }))
      .filter((line) => line.text.length > 0),
    words: lines
      .flatMap((line) => line.words)
      .slice(0, maxWordsReported)
      .map((word) => ({ text: word.text, confidence: confidenceOf(word.confidence), bbox: toBox(word.bbox) })),
  };
}

/** Runs recognition on a pooled worker; an abort terminates that worker (Tesseract cannot stop a job). */
async function recognize(bytes: Buffer, ctx: ProviderContext): Promise<Page> {
  const pooled = await pool.acquire(ctx.signal).catch((error: unknown) => {
    ctx.signal.throwIfAborted();
    throw new ProviderError("OCR_UNAVAILABLE", `No Tesseract worker could be started: ${String(error)}`, true);
  });
  if (ctx.signal.aborted) {
    // aborted while a worker was being started for this job; an abort listener added now would never fire
    pool.release(pooled);
    ctx.signal.throwIfAborted();
  }
  ctx.progress(20);
  let quartersLogged = 0;
  pooled.onProgress = (fraction) => {
    ctx.progress(20 + Math.round(fraction * 75));
    // A line per quarter of a recognition, so someone watching a long one sees it move.
    const quarter = Math.floor(fraction * 4);
    if (quarter > quartersLogged && quarter < 4) {
      quartersLogged = quarter;
      ctx.log("info", `Recognizing text: ${quarter * 25}% done`);
    }
  };
  let onAbort: (() => void) | undefined;
  try {
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(ctx.signal.reason);
      ctx.signal.addEventListener("abort", onAbort, { once: true });
    });
    const result = await Promise.race([pooled.worker.recognize(bytes, {}, { text: true, blocks: true }), aborted]);
    pool.release(pooled);
    return result.data;
  } catch (error) {
    if (ctx.signal.aborted) {
      pool.discard(pooled);
      throw ctx.signal.reason;
    }
    // tesseract.js rejects with a bare string from the worker.
    const message = error instanceof Error ? error.message : String(error);
    if (/read image/i.test(message)) {
      pool.release(pooled);
      throw invalid("The image could not be decoded: it is corrupt or uses an unsupported PNG/JPEG variant.");
    }
    pool.discard(pooled);
    throw new ProviderError("OCR_FAILED", `Tesseract failed: ${message}`, true);
  } finally {
    if (onAbort) ctx.signal.removeEventListener("abort", onAbort);
  }
}

export const imageOcr: Provider<"image-ocr"> = {
  serviceId: "image-ocr",

  warmUp: () => pool.warmUp(),
  close: () => pool.close(),

  async run(input, ctx) {
    ctx.signal.throwIfAborted();
    const image = decodeImage(input.image);
    ctx.progress(5);
    // Lines a developer watching the job sees as they happen (recognition of a large page takes seconds).
    ctx.log(
      "info",
      `Image read: ${image.format.toUpperCase()}, ${image.width}×${image.height} px, ${image.bytes.length.toLocaleString("en")} bytes`,
    );

    const started = performance.now();
    ctx.log("info", "Recognizing text (Tesseract LSTM, English)");
    const page = await recognize(image.bytes, ctx);
    ctx.providerRequest({
      provider: "tesseract.js",
      model: "eng 4.0.0_best_int (LSTM)",
      format: image.format,
      bytes: image.bytes.length,
      width: image.width,
      height: image.height,
      latencyMs: Math.round(performance.now() - started),
    });

    const text = page.text.trim();
    const { lines, words } = linesAndWords(page);
    const confidence = confidenceOf(page.confidence);
    return {
      summary: text
        ? `Read ${words.length} word${words.length === 1 ? "" : "s"} on ${lines.length} line${lines.length === 1 ? "" : "s"} (confidence ${confidence.toFixed(2)}).`
        : "No text was found in the image.",
      output: { text, confidence, lines, words, format: image.format, width: image.width, height: image.height },
    };
  },
};
