// What a server process runs beside its routes: the catalog as its configuration has it (which services are
// enabled), the sweeper, the webhook dispatcher, the payment watcher (when credit top-ups are configured)
// and EMBEDDED_NODES node agents (the same agent code as a standalone node, on the in-process transport), so
// `npm start` alone completes jobs.
import { hostname } from "node:os";
import { publishCatalog } from "@/lib/domain/database";
import { startSettlementSweep } from "@/lib/engine/paid-settlement";
import { env, x402Config } from "@/lib/env";
import { log } from "@/lib/log";
import { startPaymentWatcher } from "@/lib/payments/watcher";
import { processSingleton } from "@/lib/singleton";
import { ensureEmbeddedNode } from "./coordinator";
import { localTransport } from "./local-transport";
import { NodeAgent } from "./node-agent";
import { availableProviders, closeProviders } from "./providers/available";
import { startSweeper } from "./sweeper";
import { startWebhookDispatcher } from "./webhook-dispatcher";

interface NetworkServices {
  agents: NodeAgent[];
  stopSweeper: () => Promise<void>;
  stopWebhooks: () => Promise<void>;
  stopPayments: () => Promise<void>;
  stopSettlements: () => Promise<void>;
}

async function start(): Promise<NetworkServices> {
  await publishCatalog();
  const config = env();
  const stopSweeper = startSweeper();
  const stopWebhooks = startWebhookDispatcher();
  const stopPayments = startPaymentWatcher();
  // Pay per call's settlements left in flight (a crash, a timeout, a failed broadcast): resolved from the start.
  const stopSettlements = startSettlementSweep(x402Config());
  const agents: NodeAgent[] = [];
  for (let i = 0; i < config.EMBEDDED_NODES; i++) {
    const name = `embedded-${hostname()}-${config.PORT}-${i + 1}`;
    const { token } = await ensureEmbeddedNode(name);
    const agent = new NodeAgent(localTransport(token), {
      name,
      region: "embedded",
      concurrency: config.EMBEDDED_NODE_CONCURRENCY,
      providers: availableProviders(),
    });
    await agent.start();
    agents.push(agent);
  }
  log.info("execution network started", { embeddedNodes: agents.length });
  return { agents, stopSweeper, stopWebhooks, stopPayments, stopSettlements };
}

const services = processSingleton("network-services", start);

/** Starts the sweeper and embedded nodes once per process. */
export const startNetworkServices = (): Promise<NetworkServices> => services.get();

export async function stopNetworkServices(graceMs = 10_000): Promise<void> {
  const running = services.take();
  if (!running) return;
  const { agents, stopSweeper, stopWebhooks, stopPayments, stopSettlements } = await running;
  await Promise.all(agents.map((a) => a.stop(graceMs)));
  await stopSweeper();
  await stopWebhooks();
  await stopPayments();
  await stopSettlements();
  await closeProviders();
}
