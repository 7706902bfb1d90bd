// The standalone execution node's command: parses its options, registers with the coordinator, claims and
// runs jobs until SIGINT/SIGTERM, then stops cleanly (exporting its last spans when tracing is on). Run from a checkout (`npm run node`) or from the
// package (`npx @execution-network/node`); both are this file.
import { hostname } from "node:os";
import { parseArgs } from "node:util";
import { log } from "@/lib/log";
import { httpTransport } from "@/lib/network/http-transport";
import { NodeAgent } from "@/lib/network/node-agent";
import { availableProviders, closeProviders } from "@/lib/network/providers/available";
import { startTracing, stopTracing } from "@/lib/tracing";

export const usage = `Usage: execution-node --url <server> --token <node token> [options]

  --url <url>          the Execution Network server (default http://127.0.0.1:3000)
  --token <node_…>     the node's token (the Nodes page, or npm run node-token)
  --services <a,b>     run only these services (default: every one this machine can run)
  --concurrency <n>    jobs at a time (default 4)
  --name <name>        how the node is listed (default node-<host>-<pid>)
  --region <region>    (default local)
  --grace-ms <ms>      on SIGINT/SIGTERM, how long running jobs may finish before they are released (default 10000)
  --version, --help`;

const options = {
  url: { type: "string", default: "http://127.0.0.1:3000" },
  token: { type: "string" },
  services: { type: "string" },
  concurrency: { type: "string", default: "4" },
  name: { type: "string" },
  region: { type: "string", default: "local" },
  "grace-ms": { type: "string", default: "10000" },
  version: { type: "boolean" },
  help: { type: "boolean" },
} as const;

class UsageError extends Error {}

function wholeNumber(name: string, value: string, min: number): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min) throw new UsageError(`--${name} must be a whole number ≥ ${min}.`);
  return n;
}

/** Runs the node until a signal stops it; resolves once it is registered. Exits the process on a usage error. */
export async function runNode(argv: string[], version: string): Promise<void> {
  let values: ReturnType<typeof parseArgs<{ args: string[]; options: typeof options }>>["values"];
  try {
    ({ values } = parseArgs({ args: argv, options, strict: true }));
  } catch (error) {
    return exitWith(2, `${error instanceof Error ? error.message : String(error)}\n\n${usage}`);
  }
  if (values.help) return exitWith(0, usage, process.stdout);
  if (values.version) return exitWith(0, version, process.stdout);
  if (!values.token) return exitWith(2, `--token is required.\n\n${usage}`);

  let concurrency: number;
  let graceMs: number;
  try {
    concurrency = wholeNumber("concurrency", values.concurrency, 1);
    graceMs = wholeNumber("grace-ms", values["grace-ms"], 0);
  } catch (error) {
    return exitWith(2, (error as UsageError).message);
  }
  const all = availableProviders();
  const wanted = values.services?.split(",").map((s) => s.trim());
  const unknown = wanted?.filter((id) => !all[id]) ?? [];
  if (unknown.length > 0)
    return exitWith(2, `This node cannot run ${unknown.join(", ")} (it can run ${Object.keys(all).join(", ")}).`);
  const providers = wanted ? Object.fromEntries(Object.entries(all).filter(([id]) => wanted.includes(id))) : all;

  // With the OTEL_EXPORTER_OTLP_* variables the node exports its executions' spans, in each job's trace.
  await startTracing("execution-network-node");
  const agent = new NodeAgent(httpTransport({ baseUrl: values.url, token: values.token }), {
    name: values.name ?? `node-${hostname()}-${process.pid}`,
    region: values.region,
    concurrency,
    providers,
    // A revoked or rotated token cannot come back: end with one line and a non-zero exit (a supervisor
    // restarting the node with the same token would only be refused again).
    onTokenRefused: () => {
      process.stderr.write("The server refused this node's token (revoked or rotated): the node stopped.\n");
      void Promise.all([closeProviders(), stopTracing()]).finally(() => process.exit(3));
    },
  });
  const session = await agent.start();
  process.stdout.write(`${JSON.stringify({ event: "node-started", nodeId: session.nodeId, version })}\n`);
  // A second signal (e.g. relayed by a wrapper as well as sent to the group) must not kill the shutdown.
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("node shutting down", { signal });
    agent
      .stop(graceMs)
      .then(closeProviders)
      .then(stopTracing)
      .finally(() => process.exit(0));
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}

function exitWith(code: number, message: string, stream: NodeJS.WriteStream = process.stderr): never {
  stream.write(`${message}\n`);
  process.exit(code);
}
