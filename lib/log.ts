// Structured JSON logs on stdout/stderr. Callers pass facts, never secrets (no headers, no bodies).
import { DrizzleQueryError } from "drizzle-orm/errors";
import { env } from "@/lib/env";

type Level = "debug" | "info" | "warn" | "error";
const rank: Record<Level | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

/** The statement's kind and table ("insert into api_keys"), never its text's literals or its parameters. */
export function queryName(query: string): string {
  const verb = (/^\s*(\w+)/.exec(query)?.[1] ?? "query").toLowerCase();
  const table = /\b(?:from|into|update)\s+"?([\w.]+)"?/i.exec(query)?.[1];
  return table ? `${verb} ${table}` : verb;
}

/**
 * A database failure is logged by its query's name and the database's error code: the driver's message
 * carries the parameter values (keys' hashes, inputs, addresses), which never belong in a log.
 */
function databaseErrorFields(error: DrizzleQueryError) {
  const cause = error.cause as { code?: unknown; constraint?: unknown; name?: unknown } | undefined;
  return {
    name: "DrizzleQueryError",
    query: queryName(error.query),
    ...(typeof cause?.code === "string" ? { code: cause.code } : {}),
    ...(typeof cause?.constraint === "string" ? { constraint: cause.constraint } : {}),
    // The stack's header repeats the message (and its parameters): frames only.
    stack: error.stack
      ?.split("\n")
      .filter((line) => /^\s+at /.test(line))
      .join("\n"),
  };
}

/**
 * By shape, not only `instanceof`: a production build can bundle drizzle's error class more than once, and
 * a failed query from another copy must not have its message (the parameter values) logged either.
 */
function isQueryError(value: unknown): value is DrizzleQueryError {
  if (value instanceof DrizzleQueryError) return true;
  const candidate = value as { query?: unknown; params?: unknown } | null;
  return value instanceof Error && typeof candidate?.query === "string" && Array.isArray(candidate.params);
}

function errorFields(value: unknown): unknown {
  if (isQueryError(value)) return databaseErrorFields(value);
  return value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value;
}

export function createLogger(base: Record<string, unknown> = {}): Logger {
  const write = (level: Level, msg: string, fields?: Record<string, unknown>) => {
    if (rank[level] < rank[env().LOG_LEVEL]) return;
    const entry: Record<string, unknown> = { time: new Date().toISOString(), level, msg, ...base };
    for (const [k, v] of Object.entries(fields ?? {})) entry[k] = errorFields(v);
    const line = JSON.stringify(entry) + "\n";
    (level === "error" || level === "warn" ? process.stderr : process.stdout).write(line);
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
    child: (fields) => createLogger({ ...base, ...fields }),
  };
}

export const log = createLogger();
