// Webhook secrets and signatures (Standard Webhooks): `whsec_` + base64 of 32 random bytes, kept encrypted
// at rest with AES-256-GCM under a key derived (HKDF-SHA256) from the server's secret, and the
// `webhook-signature` header: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, one per live secret.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto";
import { serverSecret } from "@/lib/server-secret";

const secretPrefix = "whsec_";

export function generateWebhookSecret(): string {
  return secretPrefix + randomBytes(32).toString("base64");
}

let derivedKey: { from: string; key: Buffer } | undefined;

function encryptionKey(): Buffer {
  const secret = serverSecret();
  if (derivedKey?.from !== secret) {
    const key = Buffer.from(hkdfSync("sha256", secret, "execution-network", "webhook-secrets/v1", 32));
    derivedKey = { from: secret, key };
  }
  return derivedKey.key;
}

/** `v1.<iv>.<tag>.<ciphertext>` (base64url parts). */
export function encryptSecret(plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", encryptionKey(), iv);
  const ciphertext = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return ["v1", iv, cipher.getAuthTag(), ciphertext].map((p) => (typeof p === "string" ? p : p.toString("base64url"))).join(".");
}

export function decryptSecret(stored: string): string {
  const [version, iv, tag, ciphertext] = stored.split(".");
  if (version !== "v1" || !iv || !tag || !ciphertext) throw new Error("Unknown webhook secret format");
  const decipher = createDecipheriv("aes-256-gcm", encryptionKey(), Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
}

/** One `v1,<signature>` per secret, space-separated (several during a rotation's overlap). */
export function signWebhook(secrets: string[], eventId: string, timestampSeconds: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret, "base64");
      return `v1,${createHmac("sha256", key).update(`${eventId}.${timestampSeconds}.${body}`).digest("base64")}`;
    })
    .join(" ");
}
