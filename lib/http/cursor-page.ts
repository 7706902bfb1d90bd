// Lists paged by a cursor whose body stays the bare array the reference gives them (a job's log): whether
// more follows, and from where, travel in headers.

/** `X-Has-More`, and a `Link` to the `next` page (RFC 8288) when there is one. */
export function cursorPageHeaders(req: Request, next: { after: number; limit: number } | null): Record<string, string> {
  if (!next) return { "x-has-more": "false" };
  const query = new URLSearchParams({ after: String(next.after), limit: String(next.limit) });
  return { "x-has-more": "true", link: `<${new URL(req.url).pathname}?${query}>; rel="next"` };
}
