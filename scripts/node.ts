// A standalone execution node from the checkout: `npm run node -- --url http://127.0.0.1:3000 --token node_…`,
// the same command as the package's `npx @execution-network/node` (lib/node). SIGTERM/SIGINT stop it cleanly.
import packageJson from "@/lib/node/package.json" with { type: "json" };
import { runNode } from "@/lib/node/src/run-node";

runNode(process.argv.slice(2), packageJson.version).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
