// The running server's door for operator commands while it holds the embedded database (no other process
// may open it): HTTP over a Unix socket beside DATA_DIR. Only the machine's user who owns DATA_DIR gets in:
// the socket is mode 0600, and every request must carry the secret the server writes (0600) to
// DATA_DIR/operator-secret at each start. Nothing listens on the network.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { DomainError } from "@/lib/domain/errors";
import { log } from "@/lib/log";
import { isOperatorCommand, OperatorInputError, runOperatorCommand, type OperatorCommandName } from "./commands";

const maxBodyBytes = 64 * 1024;

/** Where the socket of DATA_DIR's server is; the same for the server and the command-line. */
export function operatorSocketPath(dataDir: string): string {
  const inside = path.join(path.resolve(dataDir), "operator.sock");
  // A socket's path holds at most ~107 bytes: a deep DATA_DIR gets one in the temp directory, named after it.
  if (Buffer.byteLength(inside) <= 100) return inside;
  const digest = createHash("sha256").update(realpathSync(dataDir)).digest("hex").slice(0, 24);
  return path.join(tmpdir(), `execution-network-${digest}.sock`);
}

const secretFileOf = (dataDir: string) => path.join(dataDir, "operator-secret");
const digestOf = (text: string) => createHash("sha256").update(text).digest();

/** A refusal or failure reported by the running server; its message is the line the operator reads. */
export class OperatorCommandError extends Error {
  override readonly name = "OperatorCommandError";
}

function answer(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBodyBytes) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

async function handle(req: IncomingMessage, res: ServerResponse, secretDigest: Buffer) {
  const presented = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
  if (!timingSafeEqual(digestOf(presented), secretDigest))
    return answer(res, 401, {
      error: { code: "UNAUTHENTICATED", message: "The operator secret is missing or wrong." },
    });
  const name = /^\/commands\/([\w.-]+)$/.exec(req.url ?? "")?.[1] ?? "";
  if (req.method !== "POST" || !isOperatorCommand(name))
    return answer(res, 404, { error: { code: "NOT_FOUND", message: `No operator command ${req.method} ${req.url}.` } });
  const body = await readBody(req);
  if (body === undefined)
    return answer(res, 413, { error: { code: "INVALID_REQUEST", message: "The command's input is too large." } });
  let input: unknown;
  try {
    input = JSON.parse(body);
  } catch {
    return answer(res, 400, { error: { code: "INVALID_REQUEST", message: "The command's input is not JSON." } });
  }
  try {
    answer(res, 200, { result: await runOperatorCommand(name, input) });
  } catch (error) {
    if (error instanceof OperatorInputError)
      return answer(res, 400, { error: { code: "VALIDATION_ERROR", message: error.message } });
    if (error instanceof DomainError) return answer(res, 422, { error: { code: error.code, message: error.message } });
    log.error("operator command failed", { command: name, err: error });
    answer(res, 500, {
      error: { code: "INTERNAL", message: "The server could not run the command; its log says why." },
    });
  }
}

/**
 * Opens the operator socket of the embedded database in DATA_DIR. Only the process holding DATA_DIR's lock
 * may call this: a socket file already there was left by a dead owner and is replaced.
 */
export async function startOperatorSocket(dataDir: string): Promise<() => Promise<void>> {
  const socketPath = operatorSocketPath(dataDir);
  const secretFile = secretFileOf(dataDir);
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(secretFile, secret, { mode: 0o600 });
  chmodSync(secretFile, 0o600);
  const secretDigest = digestOf(secret);
  rmSync(socketPath, { force: true });
  const server = createServer((req, res) => {
    handle(req, res, secretDigest).catch((err: unknown) => {
      log.error("operator request failed", { err });
      if (!res.headersSent) answer(res, 500, { error: { code: "INTERNAL", message: "The operator request failed." } });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  chmodSync(socketPath, 0o600);
  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(socketPath, { force: true });
  };
}

/**
 * Asks the server that holds DATA_DIR to run a command. Undefined when no server answers on its socket
 * (none runs, or a dead one left the file); an OperatorCommandError when it answers with a refusal.
 */
export async function callOperatorSocket(
  dataDir: string,
  name: OperatorCommandName,
  input: unknown,
): Promise<Record<string, unknown> | undefined> {
  const socketPath = operatorSocketPath(dataDir);
  const body = JSON.stringify(input);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath,
        method: "POST",
        path: `/commands/${name}`,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => {
          let reply: { result?: Record<string, unknown>; error?: { message?: string } } = {};
          try {
            reply = JSON.parse(text) as typeof reply;
          } catch {
            // Not ours: reported below by its status.
          }
          if (res.statusCode === 200 && reply.result) resolve(reply.result);
          else reject(new OperatorCommandError(reply.error?.message ?? `The server answered ${res.statusCode}.`));
        });
        res.on("error", reject);
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ECONNREFUSED") resolve(undefined);
      else reject(error);
    });
    // The secret is read only once a server listens: a missing file then means no server either.
    try {
      req.setHeader("authorization", `Bearer ${readFileSync(secretFileOf(dataDir), "utf8").trim()}`);
    } catch (error) {
      req.destroy();
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return resolve(undefined);
      return reject(
        new OperatorCommandError(
          `Cannot read ${secretFileOf(dataDir)}: run the command as the user who owns DATA_DIR.`,
        ),
      );
    }
    req.end(body);
  });
}
