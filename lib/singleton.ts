// "One per process" values kept on globalThis, so Next.js dev reloads and separate bundles share them.
// The promise is cached; a failed one is forgotten so the next call tries again.

export interface ProcessSingleton<T> {
  /** The value, created on first use. */
  get(): Promise<T>;
  /** Forgets the value and returns what was held (to close it), if anything. */
  take(): Promise<T> | undefined;
  /** Whether the value was never asked for (or was taken), is being created, or is ready. */
  state(): "absent" | "pending" | "ready";
}

export function processSingleton<T>(name: string, create: () => Promise<T>): ProcessSingleton<T> {
  const key = Symbol.for(`execution-network.${name}`);
  const readyKey = Symbol.for(`execution-network.${name}.ready`);
  const store = globalThis as typeof globalThis & { [key: symbol]: Promise<T> | undefined };
  const ready = globalThis as typeof globalThis & { [readyKey: symbol]: Promise<T> | undefined };
  return {
    get() {
      const held = store[key];
      if (held) return held;
      const created = create();
      store[key] = created;
      created.then(
        () => void (ready[readyKey] = created),
        () => {
          if (store[key] === created) delete store[key];
        },
      );
      return created;
    },
    take() {
      const held = store[key];
      delete store[key];
      return held;
    },
    state() {
      const held = store[key];
      if (!held) return "absent";
      return ready[readyKey] === held ? "ready" : "pending";
    },
  };
}

/**
 * A mutable record shared by every copy of a module in this process, created on first use: for state that one
 * copy writes and another reads (the payment watcher, started with the server, and /api/health, served by a
 * route's copy).
 */
export function processState<T extends object>(name: string, create: () => T): T {
  const key = Symbol.for(`execution-network.${name}`);
  const store = globalThis as typeof globalThis & { [key: symbol]: T | undefined };
  return (store[key] ??= create());
}

/**
 * Makes `instanceof cls` hold for an instance of any copy of `cls`. A production build bundles a module once
 * for instrumentation and again for the route handlers, and values cross between the copies through the
 * singletons above: a write lane created by the embedded node's copy of the engine is handed a change built
 * by a route's copy (its `Computed` values), and throws its own copy's DomainError back to the route.
 * Each copy marks its prototype with one process-wide symbol; only `cls` itself checks the mark, a subclass
 * keeps the ordinary check.
 */
export function sameClassInEveryBundle(cls: { prototype: object }, name: string): void {
  const mark = Symbol.for(`execution-network.class.${name}`);
  Object.defineProperty(cls.prototype, mark, { value: true });
  Object.defineProperty(cls, Symbol.hasInstance, {
    value(this: unknown, value: unknown): boolean {
      if (this !== cls) return Function.prototype[Symbol.hasInstance].call(this, value);
      return typeof value === "object" && value !== null && mark in value;
    },
  });
}
