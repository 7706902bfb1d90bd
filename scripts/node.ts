// A standalone execution node: `npm run node -- --url http://127.0.0.1:3000 --token node_…`
// Options: --name, --region, --concurrency, --services a,b,c. SIGTERM/SIGINT shut it down gracefully.
import { hostname } from "node:os";
import { log } from "@/lib/log";
import { httpTransport } from "@/lib/network/http-transport";
import { NodeAgent } from "@/lib/network/node-agent";
import { availableProviders, closeProviders } from "@/lib/network/providers/available";
import { fail, flag } from "./cli";

async function main() {
  const url = flag("url", "http://127.0.0.1:3000") as string;
  const token =
    flag("token") ??
    fail(
      "Usage: npm run node -- --url <server> --token <node token> [--name n] [--region r] [--concurrency 4] [--services a,b]",
    );
  const all = availableProviders();
  const wanted = flag("services")
    ?.split(",")
    .map((s) => s.trim());
  const providers = wanted ? Object.fromEntries(Object.entries(all).filter(([id]) => wanted.includes(id))) : all;
  const agent = new NodeAgent(httpTransport({ baseUrl: url, token }), {
    name: flag("name", `node-${hostname()}-${process.pid}`) as string,
    region: flag("region", "local"),
    concurrency: Number(flag("concurrency", "4")),
    providers,
    // A revoked or rotated token cannot come back: end with one line and a non-zero exit (a supervisor
    // restarting the node with the same token would only be refused again).
    onTokenRefused: () => {
      process.stderr.write("The server refused this node's token (revoked or rotated): the node stopped.\n");
      void closeProviders().finally(() => process.exit(3));
    },
  });
  const session = await agent.start();
  process.stdout.write(`${JSON.stringify({ event: "node-started", nodeId: session.nodeId })}\n`);
  // A second signal (e.g. relayed by a wrapper as well as sent to the group) must not kill the shutdown.
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("node shutting down", { signal });
    agent
      .stop(Number(flag("grace-ms", "10000")))
      .then(closeProviders)
      .finally(() => process.exit(0));
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}

main().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));
