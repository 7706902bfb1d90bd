import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operatorSocketPath, startOperatorSocket } from "./socket";

const dataDir = mkdtempSync(path.join(tmpdir(), "en-operator-"));
let stop: () => Promise<void>;
beforeAll(async () => {
  stop = await startOperatorSocket(dataDir);
});
afterAll(async () => {
  await stop?.();
  rmSync(dataDir, { recursive: true, force: true });
});

function post(pathname: string, authorization?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath: operatorSocketPath(dataDir),
        method: "POST",
        path: pathname,
        headers: authorization ? { authorization } : {},
      },
      (res) => {
        let body = "";
        res.on("data", (d: Buffer) => (body += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end("{}");
  });
}

describe("the operator socket of a running server", () => {
  it("is reachable only by DATA_DIR's owner: the socket and its secret are mode 0600", () => {
    expect(statSync(operatorSocketPath(dataDir)).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dataDir, "operator-secret")).mode & 0o777).toBe(0o600);
  });

  it("refuses a request without the secret, or with another one, before running anything", async () => {
    expect((await post("/commands/credits.grant")).status).toBe(401);
    expect((await post("/commands/credits.grant", "Bearer not-the-secret")).status).toBe(401);
  });

  it("puts a deep DATA_DIR's socket in the temp directory, the same path for the server and the command-line", () => {
    const deep = path.join(dataDir, "a".repeat(60), "b".repeat(60));
    mkdirSync(deep, { recursive: true });
    expect(operatorSocketPath(deep).startsWith(tmpdir())).toBe(true);
    expect(Buffer.byteLength(operatorSocketPath(dataDir))).toBeLessThanOrEqual(100);
  });
});
