// "Work is waiting": what wakes the claims of this process's nodes (claims.ts) when jobs become routable.
// Signals come from the database: NOTIFY on workChannel from any instance (PostgreSQL), or PGlite's
// in-process bus. A job this process creates on PostgreSQL also wakes them itself, as soon as its statement
// answers: its NOTIFY reaches this process's LISTEN connection about a millisecond later (1.1 ms p50, traced
// through `next start`), which every job would otherwise spend in the queue. The creation's NOTIFY carries a tag of
// the creation, so that of the two signals only the first wakes a node: the other would run a claim for a job
// already taken.
import { randomBytes } from "node:crypto";
import { readyDatabase } from "@/lib/domain/database";
import { workChannel } from "@/lib/domain/signals";
import { processSingleton } from "@/lib/singleton";

/** A claim waiting for work of its services; `wake` ends its wait. */
interface Waiter {
  serviceIds: string[];
  wake: () => void;
}

/** The signals of work this process created, by payload: whether the NOTIFY or the creation's answer came first. */
type CreatedSignal = "pending" | "heard" | "woken";

export interface WorkWaiters {
  /** Waiting claims, oldest first. */
  waiting: Waiter[];
  /** Services signalled while no claim of theirs was waiting: the next claim for them runs at once. */
  unclaimed: Set<string>;
  /** Services whose last claim found less than it asked for: their next claim waits for a signal first. */
  drained: Set<string>;
  created: Map<string, CreatedSignal>;
}

// A creation whose NOTIFY never arrives (its LISTEN connection was lost just then) leaves its entry behind.
const maxCreatedSignals = 10_000;
const processTag = randomBytes(6).toString("hex");
let creations = 0;

// One per process: a production build bundles this module into more than one chunk (the routes that create
// jobs, the instrumentation that runs the embedded nodes), and a creation must find the nodes' waiters.
const waitersByDatabase = processSingleton("work-waiters", async () => new WeakMap<object, Promise<WorkWaiters>>());

/** A signal for `serviceId` wakes ONE waiting claim that can run it (true), or is remembered for the next one. */
function workArrived(state: WorkWaiters, serviceId: string): boolean {
  const i = state.waiting.findIndex((w) => w.serviceIds.includes(serviceId));
  if (i >= 0) state.waiting.splice(i, 1)[0].wake();
  else state.unclaimed.add(serviceId);
  return i >= 0;
}

/** The NOTIFY payload of a creation's work: the service, then the creation's tag (none from other writers). */
const payloadOf = (serviceId: string, tag: string) => `${serviceId} ${tag}`;

function heard(state: WorkWaiters, payload: string): void {
  const created = state.created.get(payload);
  if (created === "woken") return void state.created.delete(payload);
  if (created === "pending") state.created.set(payload, "heard");
  workArrived(state, payload.split(" ")[0]);
}

/** This process's waiting claims, listening on workChannel from the first call on. */
export async function workWaiters(): Promise<WorkWaiters> {
  const database = await readyDatabase();
  const byDatabase = await waitersByDatabase.get();
  let found = byDatabase.get(database);
  if (!found) {
    const state: WorkWaiters = { waiting: [], unclaimed: new Set(), drained: new Set(), created: new Map() };
    found = database.listen(workChannel, (payload) => heard(state, payload)).then(() => state);
    byDatabase.set(database, found);
  }
  return found;
}

/** Waits until work of `serviceIds` is signalled, `ms` pass or `signal` aborts. */
export async function waitForWork(serviceIds: string[], ms: number, signal?: AbortSignal): Promise<void> {
  const state = await workWaiters();
  await new Promise<void>((resolve) => {
    const waiter: Waiter = { serviceIds, wake: done };
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      const i = state.waiting.indexOf(waiter);
      if (i >= 0) state.waiting.splice(i, 1);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    state.waiting.push(waiter);
    signal?.addEventListener("abort", done);
  });
}

export interface CreatedWork {
  /** Bound into the creation's NOTIFY payload (after the service and a space). */
  tag: string;
  /**
   * The creation committed: wake a claim now, unless its NOTIFY already did. Resolves once the woken claim has
   * had its turn to send its statement, before the creator goes on (answering its HTTP request, say): the job
   * waits in the queue for that claim, the creator's client does not wait for it.
   */
  committed(): Promise<void>;
  /** The creation wrote nothing (refused or failed): no NOTIFY will come. */
  abandoned(): void;
}

/**
 * The signals of a creation of jobs of `serviceIds` on PostgreSQL, about to be written. Without nodes waiting
 * in this process (none has claimed yet), it only names a tag nobody expects.
 */
export async function createdWork(serviceIds: Iterable<string>): Promise<CreatedWork> {
  const tag = `${processTag}.${(creations += 1)}`;
  const database = await readyDatabase();
  const state = await (await waitersByDatabase.get()).get(database);
  if (!state) return { tag, committed: () => Promise.resolve(), abandoned: () => undefined };
  const services = [...new Set(serviceIds)];
  const payloads = services.map((serviceId) => payloadOf(serviceId, tag));
  for (const payload of payloads) state.created.set(payload, "pending");
  for (const oldest of state.created.keys()) {
    if (state.created.size <= maxCreatedSignals) break;
    state.created.delete(oldest);
  }
  return {
    tag,
    async committed() {
      let woken = false;
      services.forEach((serviceId, i) => {
        const payload = payloads[i];
        if (state.created.get(payload) === "heard") return void state.created.delete(payload);
        state.created.set(payload, "woken");
        woken = workArrived(state, serviceId) || woken;
      });
      // The claim's way to its statement is promise callbacks only: all of them run before the next turn.
      if (woken) await new Promise((resolve) => setImmediate(resolve));
    },
    abandoned() {
      for (const payload of payloads) state.created.delete(payload);
    },
  };
}
