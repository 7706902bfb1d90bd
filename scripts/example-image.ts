// Draws the OCR service's example input, committed as public/examples/image-ocr.png (the playground's
// sample image). Run again only to change it: `npx tsx scripts/example-image.ts`.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { renderTextImage } from "@/lib/network/providers/testing/text-image";

void renderTextImage(["Execution Network", "Hello from the OCR example."], { fontSize: 32, width: 560 }).then((png) => {
  writeFileSync(path.resolve("public/examples/image-ocr.png"), png);
  process.stdout.write(`public/examples/image-ocr.png: ${png.length} bytes\n`);
});
