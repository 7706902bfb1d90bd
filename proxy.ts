// Runs before pages (Next.js 16 "proxy", formerly middleware): the security headers with a fresh CSP nonce
// on every page, and the page's path for server components (where sign-in returns to). The API does not pass through it, since every request would pay for it (measured through
// `next start`, 600 token-count jobs from 10 clients: about 1.5 ms of server CPU per job); its headers and
// its 405s come from lib/http (api.ts, other-methods.ts). The one API answer left here is the one no route
// can give: a path that is not percent-encoded UTF-8, which Next.js's router answers with a plain-text 500
// before any route runs; the matcher sends only API paths with a `%` here.
import { NextResponse, type NextRequest } from "next/server";
import { errorResponse } from "@/lib/http/error-envelope";
import { requestIdOf } from "@/lib/http/request-id";
import { requestPathHeader, requestPathOf } from "@/lib/http/request-path";
import { apiSecurityHeaders, pageSecurityHeaders } from "@/lib/http/security-headers";

function malformedPathRefusal(req: NextRequest): Response | undefined {
  try {
    decodeURIComponent(req.nextUrl.pathname);
    return undefined;
  } catch {
    const response = errorResponse("NOT_FOUND", "The path is not valid percent-encoded UTF-8.", requestIdOf(req));
    for (const [name, value] of apiSecurityHeaders()) response.headers.set(name, value);
    return response;
  }
}

export function proxy(req: NextRequest) {
  if (req.nextUrl.pathname.startsWith("/api/")) return malformedPathRefusal(req) ?? NextResponse.next();
  // Next.js reads the nonce from the request's CSP header and puts it on the scripts it renders.
  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  const headers = pageSecurityHeaders(nonce);
  const requestHeaders = new Headers(req.headers);
  requestHeaders.set("x-nonce", nonce);
  requestHeaders.set("content-security-policy", headers["content-security-policy"]);
  // Set here, never taken from the visitor: where sign-in returns to (lib/http/page-session.ts).
  requestHeaders.set(requestPathHeader, requestPathOf(req.nextUrl));
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

export const config = {
  matcher: [{ source: "/((?!api/|_next/static|_next/image|favicon.ico).*)" }, { source: "/api/:path(.*%.*)" }],
};
