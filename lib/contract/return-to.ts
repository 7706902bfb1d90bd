// Where signing in again returns to: the dashboard page the developer was on when the session ended, carried
// as `/sign-in?next=…`. Whatever arrives in `next` is untrusted (anyone can send a sign-in link), so only a
// path on this site is accepted — never another origin, which would turn sign-in into an open redirect.

const maxLength = 2048;
// Any origin works: a same-origin relative path resolves to it, anything else (//host, /\host, a scheme) does not.
const probeOrigin = "https://return-to.invalid";

/** `value` as a same-origin path (with query and fragment) to go to after signing in, or null if it is not one. */
export function safeReturnTo(value: unknown): string | null {
  if (typeof value !== "string" || value.length > maxLength) return null;
  // A single leading "/" and no backslash or control character (browsers read "/\host" and "/\t/host" as "//host").
  if (!value.startsWith("/") || value.startsWith("//") || /[\\\u0000-\u001f\u007f]/.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value, probeOrigin);
  } catch {
    return null;
  }
  if (url.origin !== probeOrigin) return null;
  const path = `${url.pathname}${url.search}${url.hash}`;
  // An encoded "//" (e.g. "/%0a/host" decoded by a later hop) or a page that is not the dashboard's.
  if (path.startsWith("//") || /%(0[0-9a-f]|1[0-9a-f]|5c|7f)/i.test(url.pathname)) return null;
  if (url.pathname === "/sign-in" || url.pathname.startsWith("/api/")) return null;
  return path;
}

/** The sign-in page's address that returns to `path` afterwards (plain /sign-in if `path` is not safe). */
export function signInHref(path: unknown): string {
  const returnTo = safeReturnTo(path);
  return returnTo ? `/sign-in?next=${encodeURIComponent(returnTo)}` : "/sign-in";
}
