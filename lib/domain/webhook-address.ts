// Where webhooks may go (CONTRACT §8): https only (http for allowed hosts), no credentials in the URL, and
// never to a loopback, private, link-local, CGNAT, multicast, unspecified or otherwise special address
// unless the host is listed in WEBHOOK_ALLOWED_HOSTS. The range tables are ipaddr.js's; anything that is
// not plain public unicast is refused.
import ipaddr from "ipaddr.js";
import { DomainError } from "./errors";

/** The special range an address belongs to (e.g. "loopback", "private"), or null for public unicast. */
export function forbiddenRange(address: string): string | null {
  const literal = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (!ipaddr.isValid(literal)) return "invalid";
  const ip = ipaddr.parse(literal);
  // ::ffff:a.b.c.d is the IPv4 address itself.
  const effective =
    ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress() ? (ip as ipaddr.IPv6).toIPv4Address() : ip;
  const range = effective.range();
  if (range !== "unicast") return range;
  // ::a.b.c.d (deprecated IPv4-compatible) may reach the embedded IPv4 address on some stacks.
  if (effective.kind() === "ipv6" && (effective as ipaddr.IPv6).match(ipaddr.IPv6.parse("::"), 96))
    return "ipv4Compatible";
  return null;
}

/** A URL's host without IPv6 brackets, lower-cased: the form WEBHOOK_ALLOWED_HOSTS entries are compared in. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, "").toLowerCase();

export const isAllowedHost = (host: string, allowedHosts: readonly string[]) =>
  allowedHosts.some((allowed) => allowed.replace(/^\[|\]$/g, "") === host);

const isIpLiteral = (host: string) => ipaddr.isValid(host) && (host.includes(":") || /^[0-9.]+$/.test(host));

/** Checks a URL at registration; returns it normalised. Throws 400 VALIDATION_ERROR with the reason. */
export function checkWebhookUrl(raw: string, allowedHosts: readonly string[]): string {
  const refuse = (message: string) => new DomainError("VALIDATION_ERROR", message, { field: "url" });
  if (!URL.canParse(raw)) throw refuse("The webhook URL is not a valid absolute URL.");
  const url = new URL(raw);
  const host = hostOf(url);
  const allowed = isAllowedHost(host, allowedHosts);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && allowed)) {
    throw refuse(
      "The webhook URL must use https:. Plain http: reaches only hosts this server allows (WEBHOOK_ALLOWED_HOSTS). To test with a receiver on your machine, run your own server with WEBHOOK_ALLOWED_HOSTS=127.0.0.1,localhost (for development only) and use http://127.0.0.1:<port>/…, or expose the receiver at a public https URL (a tunnel).",
    );
  }
  if (url.username || url.password) throw refuse("The webhook URL may not contain credentials.");
  if (!allowed && isIpLiteral(host)) {
    const range = forbiddenRange(host);
    if (range) throw refuse(`The webhook URL names a ${range} address, which webhooks may not reach.`);
  }
  url.hash = "";
  return url.toString();
}
