// A PostgreSQL cluster of the fault suite's own (initdb into a temp dir, trust auth, its own port and
// socket directory), so stopping "the database" never touches the machine's shared server on 5432.
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

function binDir(): string {
  const root = "/usr/lib/postgresql";
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0)
    throw new Error("No PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)");
  return path.join(root, versions[0], "bin");
}

export interface PrivatePostgres {
  /** postgres://…/postgres on 127.0.0.1:<port>. */
  adminUrl: string;
  port: number;
  start(): Promise<void>;
  /** Fast shutdown: open connections are terminated (57P01), new ones refused. */
  stop(): Promise<void>;
  /** Stops the cluster and deletes its directory. */
  destroy(): Promise<void>;
}

/** `settings` are extra server settings (`-c name=value`), e.g. for the bench's pg_stat_statements. */
export async function createPrivatePostgres(
  port: number,
  settings: Record<string, string> = {},
): Promise<PrivatePostgres> {
  const bin = binDir();
  const dir = mkdtempSync(path.join(tmpdir(), "en-faults-pg-"));
  const data = path.join(dir, "data");
  // initdb and the server refuse to run as root: run them as the unprivileged `postgres` user then.
  const asRoot = process.getuid?.() === 0;
  const exec = async (cmd: string, args: string[]) => {
    const file = path.join(bin, cmd);
    return asRoot ? run("runuser", ["-u", "postgres", "--", file, ...args]) : run(file, args);
  };
  if (asRoot) await run("chown", ["postgres", dir]);
  await exec("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200${Object.entries(
    settings,
  )
    .map(([name, value]) => ` -c ${name}=${value}`)
    .join("")}`;
  let running = false;
  const start = async () => {
    await exec("pg_ctl", ["-D", data, "-o", options, "-l", path.join(dir, "log"), "-w", "-t", "30", "start"]);
    running = true;
  };
  const stop = async () => {
    await exec("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "30", "stop"]);
    running = false;
  };
  await start();
  return {
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    async destroy() {
      if (running) await stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
