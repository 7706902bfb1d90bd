// What an operator may ask of the product from the machine it runs on (`npm run credits`, `npm run
// node-token`): one table of commands, each an input schema and the domain call it makes. The command-line
// runs them in its own process, or asks the running server to (lib/operator/socket.ts) when that server
// holds the embedded database.
import { z } from "zod";
import { grantCreditsToAddress } from "@/lib/domain/credits";
import { reconcileTreasury } from "@/lib/domain/payment-reconciliation";
import { rotateReceiptSigningKey } from "@/lib/domain/receipt-signers";
import { issueNodeToken } from "@/lib/network/coordinator";

/** A command's input was refused (the command-line says so and exits non-zero). */
export class OperatorInputError extends Error {
  override readonly name = "OperatorInputError";
}

type OperatorCommand = (input: unknown) => Promise<Record<string, unknown>>;

function command<Input extends z.ZodType>(
  schema: Input,
  run: (input: z.output<Input>) => Promise<Record<string, unknown>>,
): OperatorCommand {
  return async (input) => {
    const parsed = schema.safeParse(input);
    if (!parsed.success)
      throw new OperatorInputError(
        parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; "),
      );
    return run(parsed.data);
  };
}

const walletAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "expected a 0x wallet address of 40 hexadecimal digits");

export const operatorCommands = {
  "credits.grant": command(
    z.object({
      address: walletAddress,
      amount: z
        .number()
        .int()
        .refine((amount) => amount !== 0 && Number.isSafeInteger(amount), "expected a non-zero whole number"),
      description: z.string().min(1).max(200).default("Operator grant"),
    }),
    async ({ address, amount, description }) => {
      const entry = await grantCreditsToAddress(address, amount, description);
      return { entryId: entry.id, type: entry.type, amount: entry.amount, balanceAfter: entry.balanceAfter };
    },
  ),
  "node-token.issue": command(
    z.object({ name: z.string().min(1).max(100), region: z.string().min(1).max(50).default("local") }),
    async ({ name, region }) => {
      const { nodeId, token } = await issueNodeToken(name, { region });
      return { nodeId, name, token };
    },
  ),
  // A new generated receipt signing key; the old address stays in `previous`, so its receipts still verify.
  "receipts.rotate": command(z.object({}), async () => rotateReceiptSigningKey()),
  "payments.reconcile": command(
    z.object({ fromBlock: z.number().int().min(0), toBlock: z.number().int().min(0).optional() }),
    async (range) => reconcileTreasury(range),
  ),
} satisfies Record<string, OperatorCommand>;

export type OperatorCommandName = keyof typeof operatorCommands;

export const isOperatorCommand = (name: string): name is OperatorCommandName => Object.hasOwn(operatorCommands, name);

/** Validates `input` and runs the command in this process (which must be able to open the database). */
export const runOperatorCommand = (name: OperatorCommandName, input: unknown) => operatorCommands[name](input);
