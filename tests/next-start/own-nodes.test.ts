// Nodes developers own, as deployed: server.mjs, a developer's node added through the API and started as a
// real standalone process (`npm run node`) with its token, and the network's node issued by the operator
// command. kill -9 of the owned node mid-job and revoking it while it runs: the job is routed per its placement,
// charged once, and refunded as the price rule says. On the embedded database and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  startOpenAiCompatibleServer,
  type OpenAiCompatibleServer,
} from "@/lib/network/providers/testing/openai-compatible-server";
import { signUpDeveloper, type Developer } from "../support/developer";
import { eventually, getJob, telemetry, typesOf, waitForStatus, type JobView } from "../support/jobs";
import { startNextServer, tempDataDir, type NextServer } from "../support/next-server";
import { createScratchDatabase } from "../support/postgres";
import { startChild, startNodeProcess, type Child } from "../support/processes";

const llmKey = "sk-own-nodes";
const drivers = [
  { name: "the embedded database", postgres: false },
  ...(process.env.TEST_DATABASE_URL ? [{ name: "PostgreSQL", postgres: true }] : []),
];

describe.each(drivers)("nodes developers own, against the real server on $name", ({ postgres }) => {
  let llm: OpenAiCompatibleServer;
  let server: NextServer;
  let alice: Developer;
  let aliceKey: string;
  let env: Record<string, string>;
  const children: Child[] = [];
  const cleanups: (() => unknown)[] = [];
  const llmEnv = () => ({ LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: llmKey, LLM_MODEL: "acme-chat-1" });

  beforeAll(async () => {
    llm = await startOpenAiCompatibleServer({ apiKey: llmKey });
    cleanups.push(() => llm.close());
    const data = tempDataDir();
    cleanups.push(data.remove);
    const database = postgres ? await createScratchDatabase() : undefined;
    if (database) cleanups.push(database.drop);
    env = {
      DATA_DIR: data.dir,
      ...(database ? { DATABASE_URL: database.url } : {}),
      ...llmEnv(),
      // No embedded node: which nodes run is up to each test. text-generate costs 3; on one's own node 2.
      EMBEDDED_NODES: "0",
      OWN_NODE_CREDIT_SHARE: "0.5",
      NODE_LEASE_MS: "2000",
      // Long enough for a node process to start on a busy 2-core machine (CI's).
      ROUTING_TIMEOUT_MS: "12000",
    };
    server = await startNextServer({ env });
    alice = await signUpDeveloper(server.baseUrl);
    aliceKey = await alice.createApiKey();
  }, 180_000);

  afterAll(async () => {
    await Promise.all(children.map((c) => c.kill()));
    await server?.stop("SIGKILL");
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  /** Alice adds a node through the API and starts it with its token, as the dashboard's command says. */
  async function aliceStartsANode(name: string) {
    const res = await alice.session("/api/developers/nodes", {
      method: "POST",
      body: JSON.stringify({ name, region: "home", serviceIds: ["text-generate"], concurrency: 2 }),
    });
    expect(res.status).toBe(201);
    const { nodeId, token } = (await res.json()) as { nodeId: string; token: string };
    const child = await startNodeProcess(
      server.baseUrl,
      token,
      ["--services", "text-generate", "--concurrency", "2", "--grace-ms", "100"],
      llmEnv(),
    );
    children.push(child);
    await eventually(
      async () => (await (await alice.session(`/api/developers/nodes/${nodeId}`)).json()) as { state: string },
      (node) => node.state === "live",
    );
    return { nodeId, child };
  }

  /** The network node's token, from the operator command. */
  async function networkNodeToken() {
    // Run from a shell without the server's LLM settings, as an operator would: with PostgreSQL the command
    // opens the database itself, and must not mark text-generate disabled for everyone.
    const issued = await startChild("scripts/node-token.ts", ["network-node", "--region", "dc"], {
      DATA_DIR: env.DATA_DIR,
      ...(env.DATABASE_URL ? { DATABASE_URL: env.DATABASE_URL } : {}),
    });
    return String(issued.ready.token);
  }

  /** The network's node: a standalone process with the operator's token. */
  async function networkNodeStarts(token?: string) {
    const child = await startNodeProcess(
      server.baseUrl,
      token ?? (await networkNodeToken()),
      ["--name", "network-node", "--services", "text-generate", "--grace-ms", "100"],
      llmEnv(),
    );
    children.push(child);
    return child;
  }

  /**
   * A job is running from its claim, before its node has sent the LLM request: wait for the request, so the
   * slow reply holds it (a behaviour changed earlier would reach a request sent later).
   */
  async function llmHasReceived(requestsBefore: number) {
    await eventually(
      async () => llm.requests.length,
      (count) => count > requestsBefore,
    );
  }

  async function submit(dev: Developer, key: string, placement: string) {
    const res = await dev.withKey(key, "/api/marketplace/services/text-generate/execute", {
      method: "POST",
      body: JSON.stringify({ input: { prompt: `placed ${placement}` }, placement }),
    });
    expect(res.status).toBe(202);
    return (await res.json()) as JobView;
  }

  async function ledgerOf(jobId: string) {
    const { data } = (await (await alice.session("/api/credits/history?limit=100")).json()) as {
      data: { type: string; amount: number; jobId: string | null }[];
    };
    return data
      .filter((e) => e.jobId === jobId)
      .map((e) => [e.type, e.amount])
      .reverse();
  }

  it("kill -9 of the owned node mid-job: a job placed on own nodes fails with category routing, refunded", async () => {
    llm.behave({ reply: "slow", delayMs: 120_000 });
    const { nodeId, child } = await aliceStartsANode("box-1");
    const job = await submit(alice, aliceKey, "own");
    expect(job.creditCost).toBe(2);
    const running = await waitForStatus(alice, aliceKey, job.jobId, ["running"]);
    expect(running.assignedNode).toMatchObject({ nodeId, name: "box-1", region: "home" });

    await child.kill("SIGKILL");
    const failed = await waitForStatus(alice, aliceKey, job.jobId);
    expect(failed).toMatchObject({ status: "failed", placement: "own", error: { category: "routing" } });
    expect(typesOf(await telemetry(alice, aliceKey, job.jobId))).toContain("NODE_LOST");
    expect(await ledgerOf(job.jobId)).toEqual([
      ["charge", -2],
      ["refund", 2],
    ]);
  });

  it("kill -9 of the owned node mid-job: a job placed anywhere completes on the network's node, charged once in full", async () => {
    llm.behave({ reply: "slow", delayMs: 120_000 });
    const { child } = await aliceStartsANode("box-2");
    const sent = llm.requests.length;
    const job = await submit(alice, aliceKey, "any");
    expect((await waitForStatus(alice, aliceKey, job.jobId, ["running"])).assignedNode?.name).toBe("box-2");
    await llmHasReceived(sent);
    // Up before the kill (a process takes seconds to start on a busy machine; the routing timeout is 12 s).
    llm.behave({ reply: "normal" });
    const network = await networkNodeStarts();

    await child.kill("SIGKILL");
    const done = await waitForStatus(alice, aliceKey, job.jobId);
    expect(done).toMatchObject({
      status: "completed",
      attempt: 2,
      creditCost: 3,
      assignedNode: { name: "network-node" },
    });
    expect(await ledgerOf(job.jobId)).toEqual([["charge", -3]]);
    await network.kill("SIGTERM");
  });

  it("revoking the owned node while it runs a job: another developer's job never lands on it, and the job completes elsewhere, charged once", async () => {
    await Promise.all(children.splice(0).map((c) => c.kill("SIGKILL")));
    llm.behave({ reply: "slow", delayMs: 120_000 });
    const { nodeId, child: aliceNode } = await aliceStartsANode("box-3");
    const sent = llm.requests.length;
    const job = await submit(alice, aliceKey, "any");
    expect((await waitForStatus(alice, aliceKey, job.jobId, ["running"])).assignedNode?.nodeId).toBe(nodeId);
    await llmHasReceived(sent);

    // Bob's job waits for the network: Alice's node has a free slot, and never takes it. The network node's
    // token is issued first, so that only its process starts within Bob's routing timeout.
    const bob = await signUpDeveloper(server.baseUrl);
    const bobKey = await bob.createApiKey();
    const networkToken = await networkNodeToken();
    const bobs = await submit(bob, bobKey, "any");
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await getJob(bob, bobKey, bobs.jobId)).toMatchObject({ status: "routing", assignedNode: null });

    // The network's node takes Bob's job (Alice's is still running on her node, its LLM request slow).
    llm.behave({ reply: "normal" });
    await networkNodeStarts(networkToken);
    expect(await waitForStatus(bob, bobKey, bobs.jobId)).toMatchObject({
      status: "completed",
      assignedNode: { name: "network-node" },
    });

    const revoked = await alice.session(`/api/developers/nodes/${nodeId}`, { method: "DELETE" });
    expect(revoked.status).toBe(200);
    const done = await waitForStatus(alice, aliceKey, job.jobId);
    expect(done).toMatchObject({ status: "completed", attempt: 2, assignedNode: { name: "network-node" } });
    expect(await ledgerOf(job.jobId)).toEqual([["charge", -3]]);
    expect(typesOf(await telemetry(alice, aliceKey, job.jobId))).toContain("NODE_LOST");
    // The revoked node's process stops on its own, saying why, instead of retrying a token that cannot work.
    await eventually(
      async () => aliceNode.process.exitCode,
      (code) => code !== null,
    );
    expect(aliceNode.process.exitCode).toBe(3);
    expect(aliceNode.output()).toContain("refused this node's token");
  });

  it("a job placed anywhere that completes on the developer's own node is refunded down to the own-node price", async () => {
    llm.behave({ reply: "normal" });
    await Promise.all(children.splice(0).map((c) => c.kill("SIGTERM")));
    const { nodeId } = await aliceStartsANode("box-4");
    const job = await submit(alice, aliceKey, "any");
    const done = await waitForStatus(alice, aliceKey, job.jobId);
    expect(done).toMatchObject({ status: "completed", creditCost: 2, assignedNode: { nodeId } });
    expect(await ledgerOf(job.jobId)).toEqual([
      ["charge", -3],
      ["refund", 1],
    ]);
  });
});
