// The treasury against the ledger: `npm run payments -- reconcile --from-block <n> [--to-block <n>]` lists
// every transfer of the token to the treasury in that range beside the top-up it became, the transfers
// awaiting an account, and recorded top-ups the chain no longer holds. Works whether the server runs or not.
import { fail, flag, positional, runOperator } from "./cli";

const [command] = positional();
const fromBlock = flag("from-block");
const toBlock = flag("to-block");
const isBlock = (value: string | undefined) => value === undefined || /^\d+$/.test(value);
if (command !== "reconcile" || fromBlock === undefined || !isBlock(fromBlock) || !isBlock(toBlock)) {
  fail(
    "Usage: npm run payments -- reconcile --from-block <number> [--to-block <number>]   (default: to the chain head)",
  );
}
void runOperator("payments.reconcile", {
  fromBlock: Number(fromBlock),
  ...(toBlock === undefined ? {} : { toBlock: Number(toBlock) }),
});
