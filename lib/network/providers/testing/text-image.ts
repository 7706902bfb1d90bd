// Renders text into a PNG or JPEG for OCR tests, with a font file from node_modules (the geist package).
import { createRequire } from "node:module";
import path from "node:path";
import { createCanvas, GlobalFonts } from "@napi-rs/canvas";

const fontFamily = "Geist Test";
let fontRegistered = false;

function registerFont() {
  if (fontRegistered) return;
  // geist only exports its next/font entry points; the TTF files sit beside them.
  const sansEntry = createRequire(import.meta.url).resolve("geist/font/sans");
  const fontFile = path.join(path.dirname(sansEntry), "fonts", "geist-sans", "Geist-Regular.ttf");
  if (!GlobalFonts.registerFromPath(fontFile, fontFamily)) throw new Error(`Could not load the font ${fontFile}`);
  fontRegistered = true;
}

export interface TextImageOptions {
  format?: "png" | "jpeg";
  fontSize?: number;
  width?: number;
}

/** Black text on white, one line per entry. */
export async function renderTextImage(lines: string[], options: TextImageOptions = {}): Promise<Buffer> {
  registerFont();
  const fontSize = options.fontSize ?? 36;
  const lineHeight = Math.round(fontSize * 1.6);
  const canvas = createCanvas(options.width ?? 900, lineHeight * lines.length + fontSize * 2);
  const context = canvas.getContext("2d");
  context.fillStyle = "#ffffff";
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.fillStyle = "#000000";
  context.font = `${fontSize}px "${fontFamily}"`;
  lines.forEach((line, i) => context.fillText(line, fontSize, fontSize * 1.5 + i * lineHeight));
  return options.format === "jpeg" ? canvas.encode("jpeg", 90) : canvas.encode("png");
}
