// Secrets the app must read back itself (never stored in plaintext): AES-256-GCM under a key derived with
// HKDF-SHA256 from the server's secret, one key per purpose, each value optionally bound to its row.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { serverSecret } from "@/lib/server-secret";

/**
 * What a key seals. Each name is its key's HKDF info, so renaming one makes everything sealed for that
 * purpose unreadable (sealing.test.ts opens values sealed before this module existed).
 */
export type SealingPurpose = "webhook-secrets/v1" | "dashboard-keys" | "receipt-signing-keys";

const version = "v1";

function sealingKey(purpose: SealingPurpose): Buffer {
  return Buffer.from(hkdfSync("sha256", serverSecret(), "execution-network", purpose, 32));
}

/** `v1.<iv>.<tag>.<ciphertext>` (base64url); `context` (e.g. the row id) is authenticated, not stored. */
export function seal(purpose: SealingPurpose, plaintext: string, context = ""): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealingKey(purpose), iv);
  cipher.setAAD(Buffer.from(context));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return [version, iv, cipher.getAuthTag(), ciphertext]
    .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
    .join(".");
}

/** The plaintext, or null when the value was sealed for another purpose, server secret or context, or altered. */
export function unseal(purpose: SealingPurpose, sealed: string, context = ""): string | null {
  const [v, iv, tag, ciphertext] = sealed.split(".");
  if (v !== version || !iv || !tag || ciphertext === undefined) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", sealingKey(purpose), Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(context));
    const authTag = Buffer.from(tag, "base64url");
    if (authTag.length !== 16) return null;
    decipher.setAuthTag(authTag);
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}
