// The security headers of every response, pages and API alike (applied in proxy.ts). Scripts run only
// with this request's nonce (Next.js puts it on its own scripts); nothing may frame the app.
import { env } from "@/lib/env";

export function contentSecurityPolicy(nonce: string): string {
  const production = env().NODE_ENV === "production";
  return [
    "default-src 'self'",
    // React's development build evaluates strings for its debugging aids; production never does.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${production ? "" : " 'unsafe-eval'"}`,
    // Radix positions popovers with inline style attributes, which a nonce cannot allow.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' blob: data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Headers for every response; the CSP only where a document may render (pages and API alike get it). */
export function securityHeaders(nonce: string): Record<string, string> {
  const production = env().NODE_ENV === "production";
  return {
    "content-security-policy": contentSecurityPolicy(nonce),
    "x-content-type-options": "nosniff",
    "referrer-policy": "strict-origin-when-cross-origin",
    "x-frame-options": "DENY",
    ...(production ? { "strict-transport-security": "max-age=63072000; includeSubDomains" } : {}),
  };
}
