// Maps URLs to the app's route handlers the way the App Router does (static segments before [param]
// before [...catchAll]), so tests can serve the real handlers over HTTP without a Next build.
import { readdirSync, statSync } from "node:fs";
import path from "node:path";

export interface RouteEntry {
  file: string;
  segments: string[];
}

type Handler = (req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;
export type RouteModule = Partial<Record<string, Handler>>;

export function findRoutes(apiDir: string): RouteEntry[] {
  const found: RouteEntry[] = [];
  const walk = (dir: string, segments: string[]) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full, [...segments, name]);
      else if (name === "route.ts") found.push({ file: full, segments });
    }
  };
  walk(apiDir, ["api"]);
  const rank = (s: string) => (s.startsWith("[...") ? 2 : s.startsWith("[") ? 1 : 0);
  // More specific first: compare segment by segment.
  return found.sort((a, b) => {
    for (let i = 0; i < Math.max(a.segments.length, b.segments.length); i++) {
      const ra = a.segments[i] === undefined ? -1 : rank(a.segments[i]);
      const rb = b.segments[i] === undefined ? -1 : rank(b.segments[i]);
      if (ra !== rb) return ra - rb;
    }
    return b.segments.length - a.segments.length;
  });
}

/**
 * The route for a pathname without a trailing slash (the server redirects those first, as Next does).
 * Segments are split on "/" before being decoded, so an escaped "%2F" stays inside its parameter, as in
 * Next; a malformed escape throws URIError (the caller answers as Next does).
 */
export function matchRoute(
  routes: RouteEntry[],
  pathname: string,
): { route: RouteEntry; params: Record<string, string | string[]> } | undefined {
  const parts = pathname.replace(/^\//, "").split("/").map(decodeURIComponent);
  for (const route of routes) {
    const params: Record<string, string | string[]> = {};
    let ok = true;
    for (let i = 0; i < route.segments.length; i++) {
      const seg = route.segments[i];
      if (seg.startsWith("[...")) {
        if (parts.length <= i) ok = false;
        else params[seg.slice(4, -1)] = parts.slice(i);
        break;
      }
      if (i >= parts.length) {
        ok = false;
        break;
      }
      if (seg.startsWith("[")) params[seg.slice(1, -1)] = parts[i];
      else if (seg !== parts[i]) {
        ok = false;
        break;
      }
      if (i === route.segments.length - 1 && parts.length !== route.segments.length) ok = false;
    }
    if (ok) return { route, params };
  }
  return undefined;
}
