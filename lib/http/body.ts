// Reading request bodies: media type (415), size limit (413), JSON syntax and shape (400).
import type { z } from "zod";
import { DomainError, issuesOf } from "@/lib/domain/errors";
import { limits } from "@/lib/limits";

export interface ReadJsonOptions<T = unknown> {
  /** A byte limit, or one that depends on what the body says (checked after parsing, within `readLimitBytes`). */
  maxBytes?: number | ((value: T) => number);
  /** An empty body is read as `{}` (e.g. rotate without options). */
  allowEmpty?: boolean;
}

async function readLimited(req: Request, maxBytes: number): Promise<string> {
  const declared = Number(req.headers.get("content-length") ?? "NaN");
  const tooLarge = () =>
    new DomainError("PAYLOAD_TOO_LARGE", `The request body exceeds the limit of ${maxBytes} bytes.`, {
      limitBytes: maxBytes,
    });
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * What every JSON value and query must be before anything else reads it: nested at most
 * limits.jsonMaxDepth deep, strings (and keys) well-formed Unicode (no lone surrogates, which PostgreSQL
 * and canonical JSON refuse) and free of U+0000 (PostgreSQL text and jsonb cannot hold it). Iterative:
 * no input can exhaust the stack.
 */
const loneSurrogate = /\p{Cs}/u;

export function checkJsonValue(root: unknown): void {
  const stack: { value: unknown; depth: number }[] = [{ value: root, depth: 0 }];
  const checkString = (s: string) => {
    if (s.includes("\u0000"))
      throw new DomainError("INVALID_REQUEST", "Text may not contain the NUL character (U+0000).");
    if (loneSurrogate.test(s))
      throw new DomainError("INVALID_REQUEST", "Text must be well-formed Unicode (no lone surrogates).");
  };
  while (stack.length > 0) {
    const { value, depth } = stack.pop() as { value: unknown; depth: number };
    if (typeof value === "string") checkString(value);
    else if (value && typeof value === "object") {
      if (depth >= limits.jsonMaxDepth) {
        throw new DomainError("INVALID_REQUEST", `JSON may be nested at most ${limits.jsonMaxDepth} levels deep.`);
      }
      for (const [k, v] of Object.entries(value)) {
        if (!Array.isArray(value)) checkString(k);
        stack.push({ value: v, depth: depth + 1 });
      }
    }
  }
}

/** JSON media types, and only in UTF-8 (RFC 8259): another declared charset is refused, not misread. */
function checkJsonMediaType(contentType: string | null): void {
  if (!contentType || !/^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i.test(contentType)) {
    throw new DomainError("UNSUPPORTED_MEDIA_TYPE", "The request body must be application/json.");
  }
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType)?.[1];
  if (charset && !/^utf-?8$/i.test(charset)) {
    throw new DomainError("UNSUPPORTED_MEDIA_TYPE", `The request body must be UTF-8 JSON, not ${charset}.`);
  }
}

/** Parses the body as JSON of the given shape; any mismatch is a 400 INVALID_REQUEST with the issues. */
export async function readJson<S extends z.ZodType>(
  req: Request,
  schema: S,
  options: ReadJsonOptions<z.infer<S>> & { readLimitBytes?: number } = {},
): Promise<z.infer<S>> {
  const maxBytes =
    typeof options.maxBytes === "number" ? options.maxBytes : (options.readLimitBytes ?? limits.defaultBodyBytes);
  const contentType = req.headers.get("content-type");
  const text = await (async () => {
    if (contentType === null && options.allowEmpty) return readLimited(req, maxBytes);
    checkJsonMediaType(contentType);
    return readLimited(req, maxBytes);
  })();
  let value: unknown = {};
  if (text.trim() !== "") {
    try {
      value = JSON.parse(text);
    } catch {
      throw new DomainError("INVALID_REQUEST", "The request body is not valid JSON.");
    }
  } else if (!options.allowEmpty) {
    throw new DomainError("INVALID_REQUEST", "The request body is empty.");
  }
  checkJsonValue(value);
  const parsed = parseOr400(schema, value, "The request body");
  if (typeof options.maxBytes === "function") {
    const limit = options.maxBytes(parsed);
    if (Buffer.byteLength(text) > limit) {
      throw new DomainError("PAYLOAD_TOO_LARGE", `The request body exceeds the limit of ${limit} bytes.`, {
        limitBytes: limit,
      });
    }
  }
  return parsed;
}

export function parseOr400<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new DomainError("INVALID_REQUEST", `${what} is not valid.`, { issues: issuesOf(parsed.error) });
  }
  return parsed.data;
}

/** Query parameters as a plain object (last value wins), for zod parsing. */
export function queryOf(req: Request): Record<string, string> {
  const query = Object.fromEntries(new URL(req.url).searchParams.entries());
  checkJsonValue(query);
  return query;
}
