// Tiny helpers shared by the operator commands.
import type { OperatorCommandName } from "@/lib/operator/commands";

export function flag(name: string, fallback?: string): string | undefined {
  const args = process.argv.slice(2);
  const i = args.indexOf(`--${name}`);
  if (i >= 0 && args[i + 1] !== undefined) return args[i + 1];
  const inline = args.find((a) => a.startsWith(`--${name}=`));
  return inline ? inline.slice(name.length + 3) : fallback;
}

export const positional = () =>
  process.argv.slice(2).filter((a, i, all) => !a.startsWith("--") && !all[i - 1]?.startsWith("--"));

export function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

export async function runCommand(main: () => Promise<void>): Promise<void> {
  try {
    await main();
    const { closeDatabase } = await import("@/lib/db/open");
    await closeDatabase();
    process.exit(0);
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
}

/** Runs an operator command (through the running server when it holds DATA_DIR) and prints its JSON result. */
export function runOperator(name: OperatorCommandName, input: Record<string, unknown>): Promise<void> {
  return runCommand(async () => {
    const { operate } = await import("@/lib/operator/operate");
    process.stdout.write(`${JSON.stringify(await operate(name, input))}\n`);
  });
}
