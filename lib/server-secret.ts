// The server's own secret (SESSION_SECRET): it seals session cookies and, through HKDF, encrypts webhook
// secrets at rest. Without SESSION_SECRET one is generated once and kept under DATA_DIR (with a warning).
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { env } from "@/lib/env";
import { log } from "@/lib/log";

let secret: string | undefined;

export function serverSecret(): string {
  if (secret) return secret;
  const configured = env().SESSION_SECRET;
  if (configured) return (secret = configured);
  const dataDir = env().DATA_DIR;
  const generated = randomBytes(32).toString("base64url");
  if (dataDir.startsWith("memory://")) return (secret = generated);
  const file = path.join(dataDir, "session-secret");
  if (existsSync(file)) return (secret = readFileSync(file, "utf8").trim());
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, generated, { mode: 0o600 });
  log.warn("SESSION_SECRET is not set; generated one and stored it under DATA_DIR", { file });
  return (secret = generated);
}
