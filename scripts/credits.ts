// Operator credits: `npm run credits -- grant <0xaddress> <amount> [--description "…"]`
import { grantCreditsToAddress } from "@/lib/domain/credits";
import { fail, flag, positional, runCommand } from "./cli";

void runCommand(async () => {
  const [command, address, amountText] = positional();
  const amount = Number(amountText);
  if (command !== "grant" || !/^0x[0-9a-fA-F]{40}$/.test(address ?? "") || !Number.isSafeInteger(amount) || amount === 0) {
    fail("Usage: npm run credits -- grant <0x wallet address> <non-zero integer amount> [--description text]");
  }
  const entry = await grantCreditsToAddress(address, amount, flag("description", "Operator grant"));
  process.stdout.write(`${JSON.stringify({ entryId: entry.id, type: entry.type, amount: entry.amount, balanceAfter: entry.balanceAfter })}\n`);
});
