// image-ocr's input, checked once the same way at submission (422) and on the node: base64 (or a data:
// URL), PNG or JPEG by magic bytes, at most limits.ocrImageBytes, dimensions readable and within
// limits.ocrMaxPixels (a small file can still decode to a huge bitmap).
import { limits } from "@/lib/limits";

export type ImageFormat = "png" | "jpeg";

export interface DecodedImage {
  bytes: Buffer;
  format: ImageFormat;
  width: number;
  height: number;
}

export type ImageInspection =
  { ok: true; image: DecodedImage } | { ok: false; code: "INVALID_IMAGE" | "IMAGE_TOO_LARGE"; message: string };

class ImageRefused extends Error {
  constructor(
    readonly code: "INVALID_IMAGE" | "IMAGE_TOO_LARGE",
    message: string,
  ) {
    super(message);
  }
}
const invalid = (message: string) => new ImageRefused("INVALID_IMAGE", message);

/** Decodes an `image` input (base64 or data: URL) and checks format (by magic bytes), size and dimensions. */
export function inspectImage(image: string): ImageInspection {
  try {
    return { ok: true, image: decodeImage(image) };
  } catch (error) {
    if (error instanceof ImageRefused) return { ok: false, code: error.code, message: error.message };
    throw error;
  }
}

function decodeImage(image: string): DecodedImage {
  let base64 = image.trim();
  const dataUrl = /^data:([^;,]*)(;[^,]*)?,/i.exec(base64);
  if (dataUrl) {
    const mediaType = dataUrl[1].toLowerCase();
    if (!["image/png", "image/jpeg", "image/jpg"].includes(mediaType)) {
      throw invalid(`Only PNG and JPEG images are accepted, not ${mediaType || "an untyped data URL"}.`);
    }
    if (!/;base64$/i.test(dataUrl[2] ?? "")) throw invalid("The data URL must be base64-encoded.");
    base64 = base64.slice(dataUrl[0].length);
  }
  base64 = base64.replace(/\s+/g, "");
  // Buffer.from skips characters outside the alphabet silently; refuse them instead of decoding garbage.
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64) && !/^[A-Za-z0-9_-]*={0,2}$/.test(base64)) {
    throw invalid("The image is not valid base64.");
  }
  const decodedLength =
    Math.floor((base64.length * 3) / 4) - (base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0);
  if (decodedLength > limits.ocrImageBytes) {
    throw new ImageRefused(
      "IMAGE_TOO_LARGE",
      `The image is ${(decodedLength / 1024 / 1024).toFixed(1)} MiB; the limit is ${limits.ocrImageBytes / 1024 / 1024} MiB.`,
    );
  }
  const bytes = Buffer.from(base64, "base64");
  const format = formatOf(bytes);
  if (!format) throw invalid("The image is neither PNG nor JPEG (its first bytes match neither format).");
  const size = format === "png" ? pngSize(bytes) : jpegSize(bytes);
  if (!size) throw invalid(`The ${format.toUpperCase()} image is truncated or corrupt: its dimensions cannot be read.`);
  if (size.width * size.height > limits.ocrMaxPixels) {
    throw new ImageRefused(
      "IMAGE_TOO_LARGE",
      `The image is ${size.width}×${size.height} pixels; at most ${limits.ocrMaxPixels / 1_000_000} megapixels are accepted.`,
    );
  }
  return { bytes, format, ...size };
}

const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function formatOf(bytes: Buffer): ImageFormat | undefined {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(pngSignature)) return "png";
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpeg";
  return undefined;
}

/** Width and height from the IHDR chunk, which must come first. */
function pngSize(bytes: Buffer): { width: number; height: number } | undefined {
  if (bytes.length < 24 || bytes.toString("latin1", 12, 16) !== "IHDR") return undefined;
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  return width > 0 && height > 0 ? { width, height } : undefined;
}

/** Width and height from the first start-of-frame marker (SOF0–SOF15 except DHT, JPG and DAC). */
function jpegSize(bytes: Buffer): { width: number; height: number } | undefined {
  let offset = 2;
  while (offset + 4 <= bytes.length) {
    if (bytes[offset] !== 0xff) return undefined;
    const marker = bytes[offset + 1];
    if (marker === 0xff) {
      offset += 1; // fill byte
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      offset += 2; // markers without a length
      continue;
    }
    const length = bytes.readUInt16BE(offset + 2);
    const isStartOfFrame = marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker);
    if (isStartOfFrame) {
      if (offset + 9 > bytes.length) return undefined;
      const height = bytes.readUInt16BE(offset + 5);
      const width = bytes.readUInt16BE(offset + 7);
      return width > 0 && height > 0 ? { width, height } : undefined;
    }
    if (marker === 0xd9 || marker === 0xda || length < 2) return undefined; // image data before any frame header
    offset += 2 + length;
  }
  return undefined;
}
