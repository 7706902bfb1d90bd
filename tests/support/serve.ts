// Runs the test server in its own process (for restarts, several coordinator instances, benchmarks).
// Prints {"baseUrl": …} on stdout once it listens. Configuration comes from the environment.
import { startTestServer } from "./test-server";

async function main() {
  const server = await startTestServer({
    embeddedNodes: Number(process.env.EMBEDDED_NODES ?? "1"),
    port: Number(process.env.PORT ?? "0"),
    databaseUrl: process.env.DATABASE_URL,
    env: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)),
  });
  process.stdout.write(`${JSON.stringify({ baseUrl: server.baseUrl })}\n`);
  const stop = () => void server.close().finally(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

void main();
