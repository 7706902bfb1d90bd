// Every JSON body the API sends. `next start` gzips any answer whose client accepts it; its compression
// would skip a body under 1 KiB, where gzip costs more CPU than it saves on the wire, but it never learns
// the length (Next.js streams a route's Response without one), so it gzipped every small answer. A small
// body is marked `no-transform`, which compression honours; larger ones (job lists, the OpenAPI document)
// are still compressed. Measured through `next start` (600 token-count jobs from 10 clients, V8 profile of
// the server, two pairs): 12.0-12.3 ms of server CPU per job, against 13.5-13.8 ms when it gzipped.
const compressFrom = 1024;

export function jsonResponse(body: unknown, status: number, headers?: HeadersInit): Response {
  const text = JSON.stringify(body);
  const all = new Headers(headers);
  all.set("content-type", "application/json");
  // Bytes, not characters (a body of 600 non-ASCII characters can pass 1 KiB); a string is never shorter in
  // UTF-8 bytes than in UTF-16 units, so a long one is not measured.
  if (text.length < compressFrom && Buffer.byteLength(text) < compressFrom) {
    const cacheControl = all.get("cache-control");
    all.set("cache-control", cacheControl ? `${cacheControl}, no-transform` : "no-transform");
  }
  return new Response(text, { status, headers: all });
}
