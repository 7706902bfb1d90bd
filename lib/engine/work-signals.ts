// "Work is waiting": what wakes the claims of this process's nodes (claims.ts) when jobs become routable.
// Signals come from the database: NOTIFY on workChannel from any instance (PostgreSQL), or PGlite's
// in-process bus. A job this process creates on PostgreSQL also wakes them itself, as soon as its statement
// answers: its NOTIFY reaches this process's LISTEN connection about a millisecond later (1.1 ms p50, traced
// through `next start`), which every job would otherwise spend in the queue. The creation's NOTIFY carries a tag of
// the creation, so that of the two signals only the first wakes a node: the other would run a claim for a job
// already taken.
// When a claim of this process that can take the jobs is waiting as they are created, the creation hands them
// to it: the claim is set aside for them (no other signal can wake it meanwhile), and its statement is sent
// on the creation's connection right behind the creation's (pipelined: it runs as the creation commits, with
// no round trip to this process and back between them), its answer the claim's. The creation sends no NOTIFY
// of their service. Nobody else needs one: the claim takes them, and if it comes back full (older jobs first)
// it passes the signal on (claims.ts). A NOTIFY is not free: PostgreSQL serialises the commits of notifying
// transactions on one lock, and wakes every listening backend.
import { randomBytes } from "node:crypto";
import type { Tx } from "@/lib/db/database";
import { readyDatabase } from "@/lib/domain/database";
import { workChannel } from "@/lib/domain/signals";
import { processSingleton } from "@/lib/singleton";
import type { Placement } from "@/lib/contract/vocabulary";

/** A claim waiting for work of its services; `wake` ends its wait. */
interface Waiter {
  serviceIds: string[];
  /** A network node's (no owner): it takes every job of its services but those asking for their owner's nodes. */
  takesNetworkJobs: boolean;
  wake: () => void;
  /**
   * Ends its wait with its claim's statement sent on `d` (a creation's connection, right behind it): the claim's
   * answer is the wait's. Its promise settles with that answer; undefined (nothing sent) when the wait had ended.
   */
  claimOn?: (d: Tx) => Promise<unknown> | undefined;
  /** Its wait has ended: woken, handed a claim, timed out or aborted. */
  ended: boolean;
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

/**
 * A claim came back full: jobs of `serviceIds` may still be waiting (a creation handed its jobs to this claim,
 * which took older ones first), so ONE other waiting claim of them is woken too.
 */
export function claimedFull(state: WorkWaiters, serviceIds: string[]): void {
  const i = state.waiting.findIndex((w) => w.serviceIds.some((id) => serviceIds.includes(id)));
  if (i >= 0) state.waiting.splice(i, 1)[0].wake();
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

/**
 * Waits until work of `serviceIds` is signalled, `ms` pass or `signal` aborts (undefined: the caller claims
 * now). A network node's claim (`takesNetworkJobs`) may be handed the jobs of a creation in this process: with
 * `claim`, the creation runs it on its connection and the wait ends with its answer.
 */
export async function waitForWork<Claimed>(
  serviceIds: string[],
  ms: number,
  signal?: AbortSignal,
  { takesNetworkJobs = false, claim }: { takesNetworkJobs?: boolean; claim?: (d: Tx) => Promise<Claimed> } = {},
): Promise<Claimed | undefined> {
  const state = await workWaiters();
  return new Promise<Claimed | undefined>((resolve) => {
    /** Ends the wait, once: with the claim's answer, or with undefined for the caller to claim. */
    const end = (answer?: Promise<Claimed>) => {
      if (waiter.ended) return;
      waiter.ended = true;
      clearTimeout(timer);
      const i = state.waiting.indexOf(waiter);
      if (i >= 0) state.waiting.splice(i, 1);
      signal?.removeEventListener("abort", woken);
      resolve(answer);
    };
    const woken = () => void end();
    const waiter: Waiter = {
      serviceIds,
      takesNetworkJobs,
      wake: woken,
      claimOn:
        claim &&
        ((d) => {
          if (waiter.ended) return undefined;
          const answer = claim(d);
          end(answer);
          return answer;
        }),
      ended: false,
    };
    const timer = setTimeout(woken, ms);
    state.waiting.push(waiter);
    signal?.addEventListener("abort", woken);
  });
}

export interface CreatedWork {
  /** Bound into the creation's NOTIFY payload (after the service and a space). */
  tag: string;
  /** The services whose jobs are handed to a claim of this process: the creation sends no NOTIFY of them. */
  handedOver: string[];
  /**
   * Sends the claims the jobs are handed to on `d`, the connection the creation's statement was just sent on,
   * so that each runs as soon as the creation has committed. Their promises settle as they answer.
   */
  claimOn(d: Tx): Promise<unknown>[];
  /**
   * The creation committed: wake a claim now, unless its NOTIFY already did. Resolves once the woken claim has
   * had its turn to send its statement, before the creator goes on (answering its HTTP request, say): the job
   * waits in the queue for that claim, the creator's client does not wait for it.
   */
  committed(): Promise<void>;
  /** The creation wrote nothing (refused or failed): no NOTIFY will come. */
  abandoned(): void;
}

/** A job about to be created, as far as its signals go. */
export interface WorkToCreate {
  serviceId: string;
  placement: Placement;
}

/**
 * The signals of a creation of `created` jobs on PostgreSQL, about to be written. Without nodes waiting in
 * this process (none has claimed yet), it only names a tag nobody expects. `handOver: false` (a creation
 * inside a caller's transaction, which this process does not see commit) hands nothing over.
 */
export async function createdWork(
  created: readonly WorkToCreate[],
  { handOver = true }: { handOver?: boolean } = {},
): Promise<CreatedWork> {
  const tag = `${processTag}.${(creations += 1)}`;
  const database = await readyDatabase();
  const state = await (await waitersByDatabase.get()).get(database);
  if (!state)
    return { tag, handedOver: [], claimOn: () => [], committed: () => Promise.resolve(), abandoned: () => undefined };
  const reserved = handOver ? reserveClaims(state, created) : new Map<string, Waiter>();
  const services = [...new Set(created.map((job) => job.serviceId))].filter((id) => !reserved.has(id));
  const payloads = services.map((serviceId) => payloadOf(serviceId, tag));
  for (const payload of payloads) state.created.set(payload, "pending");
  for (const oldest of state.created.keys()) {
    if (state.created.size <= maxCreatedSignals) break;
    state.created.delete(oldest);
  }
  const claimedHere = new Set<Waiter>();
  return {
    tag,
    handedOver: [...reserved.keys()],
    claimOn(d) {
      const claims: Promise<unknown>[] = [];
      for (const waiter of new Set(reserved.values())) {
        const claim = waiter.claimOn?.(d);
        if (!claim) continue;
        claimedHere.add(waiter);
        claims.push(claim);
      }
      return claims;
    },
    async committed() {
      let woken = false;
      const wokenHere = new Set<Waiter>(claimedHere);
      for (const [serviceId, waiter] of reserved) {
        if (wokenHere.has(waiter)) continue;
        // A claim whose wait ended meanwhile (its timer, its node stopping) may have missed the jobs.
        if (waiter.ended) woken = workArrived(state, serviceId) || woken;
        else {
          waiter.wake();
          wokenHere.add(waiter);
          woken = true;
        }
      }
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
      for (const waiter of new Set(reserved.values())) if (!waiter.ended) state.waiting.unshift(waiter);
      for (const payload of payloads) state.created.delete(payload);
    },
  };
}

/**
 * Sends a creation's statement (`send` on the connection it is given) and, when its jobs are handed to claims
 * of this process, their statements right behind it on the same connection: each runs as the creation
 * commits, instead of after its answer has come back here and theirs gone out (PostgreSQL runs a connection's
 * statements in the order they arrive; a refused creation's claims find nothing of it, as they would after it).
 */
export async function sendHandingOver<Row>(
  d: Tx,
  work: CreatedWork | undefined,
  send: (on: Tx) => Promise<Row>,
): Promise<Row> {
  const database = await readyDatabase();
  if (!work?.handedOver.length || !database.pipelinedConnection) return send(d);
  const connection = await database.pipelinedConnection();
  const sent = send(connection.db);
  // Its failure is the caller's, once this returns; until then it must not count as unhandled.
  sent.catch(() => undefined);
  // The connection runs its statements in the order they are written: the claims' go out once the creation's
  // has (its way to the connection is promise callbacks only, all run before the next turn of the event loop).
  await new Promise((resolve) => setImmediate(resolve));
  const claims = work.claimOn(connection.db);
  void Promise.allSettled([sent, ...claims]).then(connection.release);
  return sent;
}

/**
 * Sets aside, for each service of `created` whose jobs a network node may take (none asks for the owner's
 * nodes), a waiting network node's claim of it: the oldest waiting, or one already set aside for another of
 * the services.
 */
function reserveClaims(state: WorkWaiters, created: readonly WorkToCreate[]): Map<string, Waiter> {
  const placements = new Map<string, boolean>();
  for (const { serviceId, placement } of created)
    placements.set(serviceId, (placements.get(serviceId) ?? true) && placement !== "own");
  const reserved = new Map<string, Waiter>();
  for (const [serviceId, forNetwork] of placements) {
    if (!forNetwork) continue;
    const runs = (w: Waiter) => w.takesNetworkJobs && w.serviceIds.includes(serviceId);
    const waiter = [...reserved.values()].find(runs) ?? state.waiting.find(runs);
    if (!waiter) continue;
    const i = state.waiting.indexOf(waiter);
    if (i >= 0) state.waiting.splice(i, 1);
    reserved.set(serviceId, waiter);
  }
  return reserved;
}
