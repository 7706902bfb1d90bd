// One cursor rule for every list paged by `after` (jobs, credit history, top-ups, deliveries, telemetry): the
// cursor is base64url(JSON [list, ...sort key of the page's last row]). Opaque to clients; validated, not
// signed: it names only a position in the caller's own list (every read stays scoped to its developer), so a
// forged one can point nowhere but there, and one from another list or of another shape is a 400.
import { z } from "zod";

const uuid = z.string().regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/);
/** Stored times have millisecond precision (schema.ts), so epoch milliseconds name a row's time exactly. */
const epochMs = z.number().int().min(0).max(253_402_300_799_999);
const sequence = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const at = epochMs.transform((ms) => new Date(ms));

/** Each list's sort key as the cursor carries it, and as the list's read receives it. */
export const cursorKeys = {
  jobs: z.tuple([at, uuid]).transform(([createdAt, id]) => ({ createdAt, id })),
  deliveries: z.tuple([at, uuid]).transform(([createdAt, id]) => ({ createdAt, id })),
  creditEntries: z.tuple([sequence]).transform(([seq]) => ({ seq })),
  topUps: z
    .tuple([at, sequence.nullable(), uuid])
    .transform(([createdAt, blockNumber, id]) => ({ createdAt, blockNumber, id })),
  telemetry: z.tuple([sequence]).transform(([seq]) => ({ seq })),
};
export type CursorList = keyof typeof cursorKeys;
export type CursorKey<L extends CursorList> = z.output<(typeof cursorKeys)[L]>;
type KeyValue = string | number | null | Date;

/** The cursor after a row whose sort key is `key` (in the order cursorKeys gives it). */
export function encodeCursor(list: CursorList, key: readonly KeyValue[]): string {
  const values = key.map((v) => (v instanceof Date ? v.getTime() : v));
  // The JSON is ASCII (a list name, digits, hex ids): btoa is enough, and runs in browsers too.
  return btoa(JSON.stringify([list, ...values]))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** The key a cursor of `list` names; undefined when it is not one (malformed, or another list's). */
export function decodeCursor<L extends CursorList>(list: L, cursor: string): CursorKey<L> | undefined {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(atob(cursor.replace(/-/g, "+").replace(/_/g, "/")));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed[0] !== list) return undefined;
  const key = cursorKeys[list].safeParse(parsed.slice(1));
  return key.success ? (key.data as CursorKey<L>) : undefined;
}
