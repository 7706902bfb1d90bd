// Runs before `next start` (and before `npm start` builds, which would rewrite .next under a running
// server): the checks that would otherwise let a server listen and then fail. Configuration, the port, and
// the embedded database's owner; each failure is one line and exit code 1.
import { createServer } from "node:net";
import { takeDataDir } from "@/lib/db/data-dir";
import { parseEnv, type Env } from "@/lib/env";
import { fail } from "./cli";

const oneLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, " ");

function readConfiguration(): Env {
  try {
    return parseEnv();
  } catch (error) {
    return fail(`Execution Network cannot start: ${oneLine(error)}`);
  }
}

async function checkPortIsFree(port: number): Promise<void> {
  // As `next start` listens: every interface. Port 0 means "any free port": nothing to check.
  if (port === 0) return;
  const server = createServer();
  await new Promise<void>((resolve) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      fail(
        error.code === "EADDRINUSE"
          ? `Execution Network cannot start: port ${port} is already in use (is a server already running? see http://localhost:${port}/api/health); stop it or set PORT to a free port.`
          : `Execution Network cannot start: cannot listen on port ${port}: ${error.message}`,
      ),
    );
    server.listen(port, () => server.close(() => resolve()));
  });
}

function checkDataDirIsFree(config: Env): void {
  if (config.DATABASE_URL || config.DATA_DIR.startsWith("memory://")) return;
  try {
    takeDataDir(config.DATA_DIR).release();
  } catch (error) {
    fail(`Execution Network cannot start: ${oneLine(error)}`);
  }
}

const config = readConfiguration();
checkDataDirIsFree(config);
void checkPortIsFree(config.PORT);
