// An in-process cache of API key lookups, so a busy key costs no query per request. Entries live a few
// seconds; revoking or rotating a key signals apiKeyChannel (NOTIFY on PostgreSQL, delivered at commit to
// every instance), which drops it everywhere at once. The lifetime only bounds what a lost notification
// connection could leave behind; while the channel cannot be listened to, nothing is cached.
import type { Database, Tx } from "@/lib/db/database";
import type { Scope } from "@/lib/contract/vocabulary";
import { log } from "@/lib/log";
import { readyDatabase } from "./database";
import { apiKeyChannel, onSignal, signal } from "./signals";

export interface CachedKey {
  accountId: string;
  keyId: string;
  scopes: Scope[];
  /** When the secret stops working by itself: the key's expiry, or the end of a rotated secret's grace. */
  validUntilMs: number;
  /** When the database last heard of a use (lastUsedAt, kept to within 30 s). */
  lastUsedAtMs: number;
}

const entryLifetimeMs = 5_000;
const maxEntries = 10_000;

interface CacheState {
  database: Database;
  listening: Promise<boolean>;
  entries: Map<string, CachedKey & { cachedUntilMs: number }>;
  /** Bumped by every invalidation: a lookup that raced one is not cached. */
  generation: number;
}

let state: CacheState | undefined;

/** Revocations and rotations made here, waiting to hear their own signal come back. */
const echoes = new Map<string, Set<() => void>>();

function forget(cache: CacheState, keyId: string): void {
  cache.generation++;
  for (const [hash, entry] of cache.entries) if (entry.keyId === keyId) cache.entries.delete(hash);
}

function onKeyChange(cache: CacheState, keyId: string): void {
  forget(cache, keyId);
  for (const heard of echoes.get(keyId) ?? []) heard();
}

/** The cache of the process's current database, or undefined while invalidations cannot be heard. */
async function currentCache(): Promise<CacheState | undefined> {
  const database = await readyDatabase();
  if (state?.database !== database) {
    const fresh: CacheState = { database, entries: new Map(), generation: 0, listening: Promise.resolve(false) };
    fresh.listening = onSignal(apiKeyChannel, (keyId) => onKeyChange(fresh, keyId)).then(
      () => true,
      (err: unknown) => {
        log.warn("API key cache disabled: cannot listen for revocations", { err });
        if (state === fresh) state = undefined;
        return false;
      },
    );
    state = fresh;
  }
  const cache = state;
  return (await cache.listening) ? cache : undefined;
}

export interface KeyCacheHandle {
  /** A live cached entry for this secret hash, if any. */
  get(hash: string): CachedKey | undefined;
  /** Remembers a lookup made through this handle, unless an invalidation came since the handle was taken. */
  set(hash: string, entry: CachedKey): void;
}

/** A handle on the cache for one lookup; a no-op handle while the cache is off. */
export async function keyCache(): Promise<KeyCacheHandle> {
  const cache = await currentCache();
  if (!cache) return { get: () => undefined, set: () => undefined };
  const generation = cache.generation;
  return {
    get(hash) {
      const entry = cache.entries.get(hash);
      if (!entry) return undefined;
      const now = Date.now();
      if (now < entry.cachedUntilMs && now < entry.validUntilMs) return entry;
      cache.entries.delete(hash);
      return undefined;
    },
    set(hash, entry) {
      if (cache.generation !== generation || state !== cache) return;
      if (cache.entries.size >= maxEntries) cache.entries.delete(cache.entries.keys().next().value as string);
      cache.entries.set(hash, { ...entry, cachedUntilMs: Date.now() + entryLifetimeMs });
    },
  };
}

/** A key's secret changed or died: in the caller's transaction, tell every instance (delivered on commit). */
export async function signalApiKeyChange(tx: Tx, keyId: string): Promise<void> {
  await signal(tx, apiKeyChannel, keyId);
}

const echoWaitMs = 1_000;

/**
 * Runs `change`, a transaction that revokes or rotates `keyId` and calls signalApiKeyChange. After its
 * commit the key is forgotten here, and the answer waits until this instance hears its own signal (at most
 * a second): by then PostgreSQL has sent the notification to every listening instance, rather than still
 * holding it behind a busy machine while the caller already tries the dead key elsewhere.
 */
export async function changeApiKey<T>(keyId: string, change: () => Promise<T>): Promise<T> {
  let heard!: () => void;
  const echo = new Promise<void>((resolve) => (heard = resolve));
  const waiting = echoes.get(keyId) ?? new Set();
  echoes.set(keyId, waiting.add(heard));
  let timer: NodeJS.Timeout | undefined;
  try {
    // Listening before the commit, so the signal cannot pass unheard.
    const cache = await currentCache();
    const result = await change();
    if (cache) {
      forget(cache, keyId);
      await Promise.race([echo, new Promise<void>((resolve) => (timer = setTimeout(resolve, echoWaitMs)))]);
    }
    return result;
  } finally {
    clearTimeout(timer);
    waiting.delete(heard);
    if (waiting.size === 0 && echoes.get(keyId) === waiting) echoes.delete(keyId);
  }
}
