// The page a request asked for, handed from the proxy to server components: a layout is not told its URL
// (Next.js passes it params only), yet sending a signed-out visitor to sign-in must say where to return.
export const requestPathHeader = "x-request-path";

/** `url`'s path and query as the visitor asked for it, without the router's own cache-busting parameter. */
export function requestPathOf(url: URL): string {
  const search = new URLSearchParams(url.search);
  search.delete("_rsc");
  const query = search.toString();
  return `${url.pathname}${query ? `?${query}` : ""}`;
}
