// How the command-line runs an operator command: against PostgreSQL (DATABASE_URL) in its own process;
// on the embedded database through the server that holds DATA_DIR when one runs, otherwise in its own
// process (holding DATA_DIR meanwhile, so a server started then waits for its turn or is refused).
import { DataDirInUseError } from "@/lib/db/data-dir";
import { env } from "@/lib/env";
import { runOperatorCommand, type OperatorCommandName } from "./commands";
import { callOperatorSocket } from "./socket";

/** How long to wait for a server that holds DATA_DIR but has not opened its socket yet (it is starting). */
const startingServerWaitMs = 30_000;

export async function operate(name: OperatorCommandName, input: unknown): Promise<Record<string, unknown>> {
  const { DATABASE_URL, DATA_DIR } = env();
  if (DATABASE_URL || DATA_DIR.startsWith("memory://")) return runOperatorCommand(name, input);
  const answered = await callOperatorSocket(DATA_DIR, name, input);
  if (answered) return answered;
  try {
    return await runOperatorCommand(name, input);
  } catch (error) {
    if (!(error instanceof DataDirInUseError)) throw error;
    // A server took DATA_DIR between our two tries and is still starting: its socket opens in a moment.
    const deadline = Date.now() + startingServerWaitMs;
    for (let delay = 100; Date.now() < deadline; delay = Math.min(delay * 2, 2_000)) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      const reply = await callOperatorSocket(DATA_DIR, name, input);
      if (reply) return reply;
    }
    throw error;
  }
}
