// The client's IP address for per-IP limits. Next.js route handlers do not see the socket, and the
// X-Forwarded-For that `next start` adds keeps any value the client sent (`??=`), so it proves nothing.
// The server process stamps each request with its socket's address under a header of its own, replacing
// whatever a client sent under that name; the forwarded chain counts only under TRUST_PROXY.
import { Server, type IncomingMessage } from "node:http";
import { env } from "@/lib/env";

const socketAddressHeader = "x-en-socket-address";
const stampedKey = Symbol.for("execution-network.socket-address-stamped");

/** Once per process: every HTTP server's requests carry their socket address in `x-en-socket-address`. */
export function stampSocketAddresses(): void {
  const proto = Server.prototype as Server & { [stampedKey]?: boolean };
  if (proto[stampedKey]) return;
  proto[stampedKey] = true;
  const emit = proto.emit;
  proto.emit = function (this: Server, event: string | symbol, ...args: unknown[]) {
    if (event === "request") {
      const req = args[0] as IncomingMessage;
      req.headers[socketAddressHeader] = req.socket.remoteAddress ?? "unknown";
    }
    return (emit as (this: Server, event: string | symbol, ...rest: unknown[]) => boolean).call(this, event, ...args);
  } as Server["emit"];
}

/** The address to count a request against: behind a trusted proxy the last hop it recorded, else the socket. */
export function clientAddressOf(req: Request): string {
  if (env().TRUST_PROXY) {
    const hops = (req.headers.get("x-forwarded-for") ?? "").split(",").map((h) => h.trim()).filter(Boolean);
    if (hops.length > 0) return hops[hops.length - 1];
  }
  return req.headers.get(socketAddressHeader) ?? "unknown";
}
