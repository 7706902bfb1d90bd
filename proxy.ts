// Runs before every route (Next.js 16 "proxy", formerly middleware): the security headers with a fresh
// CSP nonce on every response, and the API's answers the framework would otherwise give without the
// contract's envelope — 404 for a path that is not percent-encoded UTF-8 (Next.js answers a plain-text
// 500), 405 for a method a route lacks.
import { NextResponse, type NextRequest } from "next/server";
import { errorResponse } from "@/lib/http/error-envelope";
import { routes } from "@/lib/http/routes";
import { requestIdOf } from "@/lib/http/request-id";
import { securityHeaders } from "@/lib/http/security-headers";

const routePatterns = Object.values(routes).map((r) => ({
  method: r.method.toUpperCase(),
  pattern: new RegExp(`^${r.path.replace(/\{[^}]+\}/g, "[^/]+")}/?$`),
}));

function apiRefusal(req: NextRequest, requestId: string): Response | undefined {
  const { pathname } = req.nextUrl;
  try {
    decodeURIComponent(pathname);
  } catch {
    return errorResponse("NOT_FOUND", "The path is not valid percent-encoded UTF-8.", requestId);
  }
  const methods = routePatterns.filter((r) => r.pattern.test(pathname)).map((r) => r.method);
  if (methods.length === 0) return undefined; // the catch-all route answers 404
  const allowed = new Set([...methods, ...(methods.includes("GET") ? ["HEAD"] : []), "OPTIONS"]);
  if (allowed.has(req.method)) return undefined;
  const response = errorResponse("METHOD_NOT_ALLOWED", `${req.method} is not allowed on ${pathname}.`, requestId, {
    allowed: [...allowed],
  });
  response.headers.set("allow", [...allowed].join(", "));
  return response;
}

export function proxy(req: NextRequest) {
  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  const headers = securityHeaders(nonce);
  let response: Response;
  if (req.nextUrl.pathname.startsWith("/api/")) {
    const requestId = requestIdOf(req);
    const refused = apiRefusal(req, requestId);
    if (refused) response = refused;
    else {
      // The route's withApi echoes this id (a well-formed incoming one is kept as is).
      const requestHeaders = new Headers(req.headers);
      requestHeaders.set("x-request-id", requestId);
      response = NextResponse.next({ request: { headers: requestHeaders } });
    }
  } else {
    // Next.js reads the nonce from the request's CSP header and puts it on the scripts it renders.
    const requestHeaders = new Headers(req.headers);
    requestHeaders.set("x-nonce", nonce);
    requestHeaders.set("content-security-policy", headers["content-security-policy"]);
    response = NextResponse.next({ request: { headers: requestHeaders } });
  }
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

export const config = {
  matcher: [{ source: "/((?!_next/static|_next/image|favicon.ico).*)" }],
};
