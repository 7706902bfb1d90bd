// An in-process cache of API key lookups, so a busy key costs no query per request. Entries live a few
// seconds; revoking or rotating a key signals apiKeyChannel (NOTIFY on PostgreSQL, delivered at commit to
// every instance), which drops it everywhere, and the change is answered only once every listening instance
// has said it dropped the key. The lifetime only bounds what a lost notification connection could leave
// behind; while the channel cannot be listened to, nothing is cached.
import { randomUUID } from "node:crypto";
import type { Database, Tx } from "@/lib/db/database";
import type { Scope } from "@/lib/contract/vocabulary";
import { log } from "@/lib/log";
import { readyDatabase } from "./database";
import { processSingleton } from "@/lib/singleton";
import { apiKeyChannel, apiKeyHeardChannel, onSignal, signal } from "./signals";

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

/** This process, as it names itself when it says it dropped a key (one id however many copies of this module). */
const thisInstance = processSingleton("instance-id", async () => randomUUID());

/** Revocations and rotations made here, each waiting for the instances that have dropped its key. */
interface ChangeWaiter {
  heardFrom: Set<string>;
  /** How many instances listen (known once counted, after the commit). */
  expected: number;
  check(): void;
}
const waiters = new Map<string, Set<ChangeWaiter>>();

function forget(cache: CacheState, keyId: string): void {
  cache.generation++;
  for (const [hash, entry] of cache.entries) if (entry.keyId === keyId) cache.entries.delete(hash);
}

/** Drops the key, then says so to the instance that changed it (whichever instance that was, this one too). */
function onKeyChange(cache: CacheState, keyId: string): void {
  forget(cache, keyId);
  void thisInstance
    .get()
    .then((instance) => signal(cache.database.db, apiKeyHeardChannel, `${keyId} ${instance}`))
    .catch((err: unknown) => log.warn("could not confirm a dropped API key", { err, keyId }));
}

function onKeyDropped(payload: string): void {
  const [keyId, instance] = payload.split(" ");
  for (const waiter of waiters.get(keyId) ?? []) {
    waiter.heardFrom.add(instance);
    waiter.check();
  }
}

/** The cache of the process's current database, or undefined while invalidations cannot be heard. */
async function currentCache(): Promise<CacheState | undefined> {
  const database = await readyDatabase();
  if (state?.database !== database) {
    const fresh: CacheState = { database, entries: new Map(), generation: 0, listening: Promise.resolve(false) };
    fresh.listening = Promise.all([
      onSignal(apiKeyChannel, (keyId) => onKeyChange(fresh, keyId)),
      onSignal(apiKeyHeardChannel, onKeyDropped),
    ]).then(
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

/** The longest a change waits for the instances: one that stopped listening must not hold revocations up. */
const heardWaitMs = 1_000;

/**
 * Starts listening for key changes: a server calls it at start-up, so that it drops a revoked key (and says
 * so) from the start, not only after its first API-key request.
 */
export async function listenForKeyChanges(): Promise<void> {
  await currentCache();
}

/**
 * Runs `change`, a transaction that revokes or rotates `keyId` and calls signalApiKeyChange. After its commit
 * the key is forgotten here, and the answer waits until every instance listening on the database has said it
 * dropped the key (at most a second): PostgreSQL sends a notification to each instance on its own, and an
 * instance may read it only after a request it got meanwhile, so hearing this instance's own signal is not
 * enough to know the others have dropped the key.
 */
export async function changeApiKey<T>(keyId: string, change: () => Promise<T>): Promise<T> {
  let allHeard!: () => void;
  const waiter: ChangeWaiter = {
    heardFrom: new Set(),
    expected: Number.POSITIVE_INFINITY,
    check: () => waiter.heardFrom.size >= waiter.expected && allHeard(),
  };
  const heard = new Promise<void>((resolve) => (allHeard = resolve));
  const waiting = waiters.get(keyId) ?? new Set();
  waiters.set(keyId, waiting.add(waiter));
  let timer: NodeJS.Timeout | undefined;
  try {
    // Listening before the commit, so no answer can pass unheard.
    const cache = await currentCache();
    const result = await change();
    if (cache) {
      forget(cache, keyId);
      // Not counted (the database just failed us): the change has committed, so wait out the bound and answer.
      waiter.expected = await cache.database.listeningInstances().catch((err: unknown) => {
        log.warn("could not count the instances listening for key changes", { err });
        return Number.POSITIVE_INFINITY;
      });
      waiter.check();
      await Promise.race([heard, new Promise<void>((resolve) => (timer = setTimeout(resolve, heardWaitMs)))]);
    }
    return result;
  } finally {
    clearTimeout(timer);
    waiting.delete(waiter);
    if (waiting.size === 0 && waiters.get(keyId) === waiting) waiters.delete(keyId);
  }
}
