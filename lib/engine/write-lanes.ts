// Writes that leave each server instance for the database through a lane per key, in arrival order: while a
// write of a lane is in flight, the next items wait here and then go together, as one write.
// - One developer's submissions (submit-job.ts): each write charges the developer's balance row, which
//   PostgreSQL lets one transaction update at a time, so a burst sent as separate writes would queue inside
//   the database instead: every waiter holding one of the instance's pooled connections (a burst wider than
//   the pool leaves none for other developers or for the nodes' claims and reports), PostgreSQL paying for
//   each wait and wake-up, and a commit per job.
// - One node's results (node-reports.ts): the slots of a busy node finish jobs one after another; written
//   together, they cost one statement and one commit instead of one each.
// A write of several that fails is written again one item at a time, so each item's refusal is its own.

export interface Lanes<Item, Result> {
  /** Writes `item` in `key`'s lane: at once when the lane is idle, else with the items waiting beside it. */
  write(key: string, item: Item): Promise<Result>;
}

export interface LaneOptions<Item, Result> {
  /** Writes items together, returning each one's result in their order, or throws for them all. */
  write(items: Item[]): Promise<Result[]>;
  /** Whether `item` may be written together with `first` (the oldest item waiting). */
  together(first: Item, item: Item): boolean;
  /** At most this many items in one write, … */
  maxItems: number;
  /** … and at most this much of their weight (the first item goes whatever its own). */
  maxWeight: number;
  weight(item: Item): number;
}

interface Waiting<Item, Result> {
  item: Item;
  resolve(result: Result): void;
  reject(error: unknown): void;
}

export function lanes<Item, Result>(options: LaneOptions<Item, Result>): Lanes<Item, Result> {
  // A lane is here while it is busy: the items waiting behind its write in flight.
  const busy = new Map<string, Waiting<Item, Result>[]>();

  /** The oldest waiting item and those after it that may go with it, taken off the queue. */
  const nextWrite = (queue: Waiting<Item, Result>[]) => {
    let n = 1;
    let weight = options.weight(queue[0].item);
    while (n < queue.length && n < options.maxItems && options.together(queue[0].item, queue[n].item)) {
      weight += options.weight(queue[n].item);
      if (weight > options.maxWeight) break;
      n += 1;
    }
    return queue.splice(0, n);
  };

  const settle = async (batch: Waiting<Item, Result>[]): Promise<void> => {
    try {
      const results = await options.write(batch.map((w) => w.item));
      batch.forEach((w, i) => w.resolve(results[i]));
    } catch (error) {
      if (batch.length === 1) return batch[0].reject(error);
      for (const waiting of batch) await settle([waiting]);
    }
  };

  const drain = async (key: string, queue: Waiting<Item, Result>[]) => {
    while (queue.length > 0) await settle(nextWrite(queue));
    busy.delete(key);
  };

  return {
    write: (key, item) =>
      new Promise<Result>((resolve, reject) => {
        const waiting = { item, resolve, reject };
        const queue = busy.get(key);
        if (queue) return void queue.push(waiting);
        const fresh = [waiting];
        busy.set(key, fresh);
        void drain(key, fresh);
      }),
  };
}

/**
 * About how many bytes a JSON value takes in a write (its strings' lengths, counted without serializing them: an
 * image's base64 can be megabytes), so that one write never carries many large inputs or results.
 */
export function jsonWeight(value: unknown): number {
  if (typeof value === "string") return value.length + 2;
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + jsonWeight(item) + 1, 2);
  if (value !== null && typeof value === "object")
    return Object.entries(value).reduce((sum, [key, item]) => sum + key.length + jsonWeight(item) + 4, 2);
  return 8;
}
