// Secrets the app must read back itself (never stored in plaintext): AES-256-GCM, bound to their row.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const version = "v1";

/** `v1.<iv>.<tag>.<ciphertext>` (base64url); `context` (e.g. the row id) is authenticated, not stored. */
export function seal(plaintext: string, key: Buffer, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(context));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return [version, iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === "string" ? part : part.toString("base64url"))).join(".");
}

/** The plaintext, or null when the value was sealed with another key or context, or altered. */
export function unseal(sealed: string, key: Buffer, context: string): string | null {
  const [v, iv, tag, ciphertext] = sealed.split(".");
  if (v !== version || !iv || !tag || ciphertext === undefined) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(context));
    const authTag = Buffer.from(tag, "base64url");
    if (authTag.length !== 16) return null;
    decipher.setAuthTag(authTag);
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}
