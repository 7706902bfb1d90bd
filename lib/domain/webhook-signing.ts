// Webhook secrets and signatures (Standard Webhooks): `whsec_` + base64 of 32 random bytes, kept encrypted
// at rest (sealing.ts: AES-256-GCM under a key derived from the server's secret), and the
// `webhook-signature` header: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, one per live secret.
import { createHmac, randomBytes } from "node:crypto";
import { seal, unseal } from "./sealing";

const secretPrefix = "whsec_";

export function generateWebhookSecret(): string {
  return secretPrefix + randomBytes(32).toString("base64");
}

/** Not bound to a row (no context): the secrets stored so far were sealed without one. */
export const encryptSecret = (plain: string): string => seal("webhook-secrets/v1", plain);

export function decryptSecret(stored: string): string {
  const plain = unseal("webhook-secrets/v1", stored);
  if (plain === null)
    throw new Error("A webhook secret does not open with this server's secret (SESSION_SECRET changed?)");
  return plain;
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
