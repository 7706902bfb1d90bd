// The server's own secret (SESSION_SECRET): it seals session cookies and, through HKDF, encrypts webhook
// secrets at rest. Without SESSION_SECRET one is generated once and kept under DATA_DIR (with a warning).
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { processState } from "@/lib/singleton";

// Per process, not per copy of this module: a secret generated in memory must seal what every copy opens.
const held = processState<{ secret?: string }>("server-secret", () => ({}));

export function serverSecret(): string {
  return (held.secret ??= readOrCreateSecret());
}

function readOrCreateSecret(): string {
  const configured = env().SESSION_SECRET;
  if (configured) return configured;
  const dataDir = env().DATA_DIR;
  const generated = randomBytes(32).toString("base64url");
  if (dataDir.startsWith("memory://")) return generated;
  const file = path.join(dataDir, "session-secret");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, generated, { mode: 0o600 });
  log.warn("SESSION_SECRET is not set; generated one and stored it under DATA_DIR", { file });
  return generated;
}
