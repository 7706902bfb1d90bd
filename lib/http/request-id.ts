import { randomBytes } from "node:crypto";

const acceptable = /^[A-Za-z0-9._-]{1,128}$/;

/** Echoes a well-formed incoming x-request-id, otherwise makes a new one (CONTRACT §1). */
export function requestIdOf(req: Request): string {
  const incoming = req.headers.get("x-request-id");
  return incoming && acceptable.test(incoming) ? incoming : `req_${randomBytes(12).toString("base64url")}`;
}
