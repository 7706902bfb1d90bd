/**
 * Waits `ms`, or less if `signal` aborts first (resolves either way: callers check their own stop state).
 * The abort listener is removed when the timer wins: a loop that sleeps on one long-lived signal would
 * otherwise add a listener per turn (a leak, and Node's MaxListenersExceededWarning after eleven).
 */
export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const finish = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", finish);
      resolve();
    };
    const timer = setTimeout(finish, ms);
    signal?.addEventListener("abort", finish, { once: true });
  });
