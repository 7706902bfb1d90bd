// Each built-in service's example input: what the playground starts from and what "Reset to example"
// restores, so the form and the generated snippets hold a request the API accepts from the first view.
// image-ocr's example is the committed sample image public/examples/image-ocr.png.
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { ServiceId, ServiceInput } from "./catalog";

type Examples = { [S in ServiceId]: ServiceInput<S> };

const sampleImagePath = path.join(process.cwd(), "public", "examples", "image-ocr.png");

const textExamples: Omit<Examples, "image-ocr"> = {
  "text-sentiment": { text: "The new release is fast and delightful. Setting it up took five minutes." },
  "text-summarize": {
    text: [
      "Execution Network runs AI workloads as jobs on a network of execution nodes.",
      "A developer submits a job with an API key and gets an answer at once, while a node picks the job up.",
      "Every job records its lifecycle as telemetry events, so its progress can be followed live.",
      "Credits pay for jobs: the cost is charged when the job is created and refunded when it fails.",
      "Webhooks push each change of a job to the developer's own endpoint, signed and retried.",
    ].join(" "),
    sentences: 2,
  },
  "language-detect": {
    text: "Le réseau exécute chaque tâche sur un nœud disponible et rembourse les crédits si elle échoue.",
  },
  "token-count": { text: "How many tokens does this sentence take in GPT-4o's encoding?", model: "gpt-4o" },
  "text-generate": { prompt: "Write a haiku about a job queue that never loses a job.", format: "text" },
};

let sampleImage: Promise<string> | undefined;

/** The sample image as a data: URL, read once. */
function sampleImageDataUrl(): Promise<string> {
  sampleImage ??= readFile(sampleImagePath).then((png) => `data:image/png;base64,${png.toString("base64")}`);
  return sampleImage;
}

export async function exampleInput(serviceId: ServiceId): Promise<Record<string, unknown>> {
  if (serviceId === "image-ocr") return { image: await sampleImageDataUrl() };
  return textExamples[serviceId];
}
