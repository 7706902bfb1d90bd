// Effects that may happen only once what they describe is committed (this process's metrics): registered
// with the transaction that writes it, run after its commit, dropped with its rollback. A savepoint's effects
// join its parent's when it is released and are dropped when it is rolled back. Written outside a transaction
// (the database itself: each statement commits on its own), an effect runs at once.
import type { Db, Tx } from "./database";

type Effects = (() => void)[];
const pending = new WeakMap<object, Effects>();

/** Runs `effect` once `tx` has committed (at once when `tx` is the database itself). */
export function afterCommit(tx: Tx, effect: () => void): void {
  const effects = pending.get(tx);
  if (effects) effects.push(effect);
  else effect();
}

type TransactionOf = (work: (tx: Tx) => Promise<unknown>, config?: unknown) => Promise<unknown>;

/** Wraps `owner.transaction` so its transactions (and theirs, as savepoints) keep effects until they commit. */
function trackTransactions(owner: { transaction: unknown }, onCommit: (effects: Effects) => void): void {
  const original = (owner.transaction as TransactionOf).bind(owner);
  owner.transaction = async (work: (tx: Tx) => Promise<unknown>, config?: unknown) => {
    const effects: Effects = [];
    const result = await original(async (tx) => {
      pending.set(tx, effects);
      trackTransactions(tx as { transaction: unknown }, (inner) => effects.push(...inner));
      return work(tx);
    }, config);
    onCommit(effects);
    return result;
  };
}

/** The database with commit effects tracked on every transaction opened from it. */
export function withCommitEffects(db: Db): Db {
  trackTransactions(db as { transaction: unknown }, (effects) => {
    for (const effect of effects) effect();
  });
  return db;
}
