// Reads a Server-Sent Events response (the job events stream) to its end.
export interface SseMessage {
  id?: string;
  event: string;
  data: { sequence?: number; type?: string; status?: string; [field: string]: unknown };
}

/** The messages of an SSE response, read until the server closes it (after the job's final state). */
export async function readEventStream(res: Response): Promise<SseMessage[]> {
  const text = await res.text();
  return text
    .split("\n\n")
    .filter((block) => block.includes("data:"))
    .map((block) => {
      const fields = Object.fromEntries(
        block.split("\n").map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trim()]),
      );
      return { id: fields.id, event: fields.event, data: JSON.parse(fields.data) };
    });
}
