// Issues a node token: `npm run node-token -- <name> [--region eu-west]`. The token is printed once. Works
// whether the server runs or not (lib/operator/operate.ts).
import { fail, flag, positional, runOperator } from "./cli";

const [name] = positional();
if (!name) fail("Usage: npm run node-token -- <node name> [--region <region>]");
void runOperator("node-token.issue", { name, region: flag("region") });
