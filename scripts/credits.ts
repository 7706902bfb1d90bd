// Operator credits: `npm run credits -- grant <0xaddress> <amount> [--description "…"]`. Works whether the
// server runs or not (lib/operator/operate.ts).
import { fail, flag, positional, runOperator } from "./cli";

const [command, address, amountText] = positional();
if (command !== "grant" || !address || !amountText)
  fail("Usage: npm run credits -- grant <0x wallet address> <non-zero integer amount> [--description text]");
void runOperator("credits.grant", { address, amount: Number(amountText), description: flag("description") });
