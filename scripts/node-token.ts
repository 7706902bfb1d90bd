// Issues a node token: `npm run node-token -- <name> [--region eu-west]`. The token is printed once.
import { issueNodeToken } from "@/lib/network/coordinator";
import { fail, flag, positional, runCommand } from "./cli";

void runCommand(async () => {
  const [name] = positional();
  if (!name) fail("Usage: npm run node-token -- <node name> [--region <region>]");
  const { nodeId, token } = await issueNodeToken(name, { region: flag("region", "local") });
  process.stdout.write(`${JSON.stringify({ nodeId, name, token })}\n`);
});
