// The security headers of every response, pages and API alike (applied in proxy.ts). Scripts run only
// with this request's nonce (Next.js puts it on its own scripts); nothing may frame the app.
import { env, walletConnectSettings } from "@/lib/env";

/**
 * WalletConnect on sign-in, when configured: the page talks to its relay over a WebSocket. With WalletConnect's
 * own relay, its Verify service also runs in a hidden frame to attest this origin to the phone wallet; with a
 * self-hosted relay the page skips Verify (components/wallet/walletconnect.ts), so nothing more is allowed.
 */
function walletConnectSources(): { connect: string; frame?: string } {
  const settings = walletConnectSettings();
  if (!settings) return { connect: "" };
  if (settings.relayUrl) return { connect: ` ${new URL(settings.relayUrl).origin}` };
  return { connect: " wss://relay.walletconnect.org", frame: "https://verify.walletconnect.org" };
}

export function contentSecurityPolicy(nonce: string): string {
  const production = env().NODE_ENV === "production";
  const walletConnect = walletConnectSources();
  return [
    "default-src 'self'",
    // React's development build evaluates strings for its debugging aids; production never does.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${production ? "" : " 'unsafe-eval'"}`,
    // Radix positions popovers with inline style attributes, which a nonce cannot allow.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' blob: data:",
    "font-src 'self'",
    `connect-src 'self'${walletConnect.connect}`,
    ...(walletConnect.frame ? [`frame-src 'self' ${walletConnect.frame}`] : []),
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

function commonHeaders(): Record<string, string> {
  const production = env().NODE_ENV === "production";
  return {
    "x-content-type-options": "nosniff",
    "referrer-policy": "strict-origin-when-cross-origin",
    "x-frame-options": "DENY",
    ...(production ? { "strict-transport-security": "max-age=63072000; includeSubDomains" } : {}),
  };
}

/** A page's headers: its CSP allows only scripts carrying this request's nonce. */
export function pageSecurityHeaders(nonce: string): Record<string, string> {
  return { "content-security-policy": contentSecurityPolicy(nonce), ...commonHeaders() };
}

let apiHeaders: [string, string][] | undefined;

/**
 * An API answer's headers: JSON is never a document to render, so its CSP allows nothing at all, and no
 * nonce is needed. The same for every answer, so made once (the API's hot path runs this per request).
 */
export function apiSecurityHeaders(): readonly [string, string][] {
  apiHeaders ??= Object.entries({
    "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
    ...commonHeaders(),
  });
  return apiHeaders;
}
