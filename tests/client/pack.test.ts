// The package as a consumer gets it: `npm pack` (which builds), install the tarball into a bare Node
// project, import it from plain ESM and from TypeScript, call a real HTTP server and verify a signed receipt.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  receiptDigest,
  receiptDomain,
  receiptPrimaryType,
  receiptTypes,
  typedReceiptMessage,
  type ReceiptMessage,
} from "@/lib/contract/receipts";
import { startFakeApi, type FakeApi } from "./fake-api";

const run = promisify(execFile);
const repo = path.resolve(__dirname, "../..");
const packageDir = path.join(repo, "lib/client");
const bin = (name: string) => path.join(repo, "node_modules/.bin", name);

interface PackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string }[];
}

const services = [
  {
    serviceId: "token-count",
    name: "Token count",
    description: "Counts tokens.",
    creditCost: 1,
    status: "active",
    inputSchema: {},
  },
];

/** The package's only dependencies: audited, themselves dependency-free (but for noble's own hashes). */
const dependencyRanges = { "@noble/curves": "^1.9.1", "@noble/hashes": "^1.8.0", canonicalize: "^5.1.0" };

let workDir: string;
let appDir: string;
let packed: PackResult;
let api: FakeApi;

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "en-client-pack-"));
  appDir = path.join(workDir, "app");
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", workDir], { cwd: packageDir });
  [packed] = JSON.parse(stdout) as PackResult[];
  await run("mkdir", ["-p", appDir]);
  await writeFile(
    path.join(appDir, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  // Its dependencies come packed from the repo's own node_modules (the versions package-lock.json pins), so
  // the install stays offline; any other dependency would fail it (ENOTCACHED).
  const dependencies = await Promise.all(
    Object.keys(dependencyRanges).map(async (name) => {
      const { stdout } = await run(
        "npm",
        ["pack", "--json", "--ignore-scripts", "--pack-destination", workDir, path.join(repo, "node_modules", name)],
        { cwd: workDir },
      );
      return path.join(workDir, (JSON.parse(stdout) as PackResult[])[0]!.filename);
    }),
  );
  await run(
    "npm",
    ["install", "--offline", "--no-audit", "--no-fund", ...dependencies, path.join(workDir, packed.filename)],
    { cwd: appDir },
  );
  api = await startFakeApi(() => ({ status: 200, body: services }));
}, 180_000);

afterAll(async () => {
  await api?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("the published package", () => {
  it("contains the build, the types and the README, and nothing else", () => {
    const files = packed.files.map((f) => f.path).sort();
    expect(files).toEqual(
      expect.arrayContaining([
        "README.md",
        "package.json",
        "dist/index.js",
        "dist/index.d.ts",
        "dist/client.js",
        "dist/types.d.ts",
      ]),
    );
    expect(files.filter((f) => !f.startsWith("dist/") && !["README.md", "package.json"].includes(f))).toEqual([]);
    expect(files.some((f) => f.endsWith(".test.js") || f.includes("src/"))).toBe(false);
  });

  it("installs with exactly its audited dependencies and lists the services from plain ESM", async () => {
    const script = path.join(appDir, "list-services.mjs");
    await writeFile(
      script,
      `import { ExecutionClient, ExecutionApiError, VERSION } from "@execution-network/client";
const client = new ExecutionClient({ apiKey: "dev_pack_test", baseUrl: process.env.BASE_URL });
const services = await client.listServices();
console.log(JSON.stringify({ version: VERSION, errorClass: typeof ExecutionApiError, services }));
`,
    );
    // Asynchronous on purpose: the fake server lives in this process and must keep answering.
    const { stdout } = await run("node", [script], { cwd: appDir, env: { ...process.env, BASE_URL: api.baseUrl } });
    expect(JSON.parse(stdout)).toEqual({ version: "0.2.0", errorClass: "function", services });
    expect(api.requests.at(-1)?.headers["x-api-key"]).toBe("dev_pack_test");

    const installed = JSON.parse(
      await readFile(path.join(appDir, "node_modules/@execution-network/client/package.json"), "utf8"),
    ) as { dependencies?: Record<string, string> };
    expect(installed.dependencies).toEqual(dependencyRanges);
    const { stdout: tree } = await run("npm", ["ls", "--all", "--parseable"], { cwd: appDir });
    expect(
      tree
        .trim()
        .split("\n")
        .map((p) => path.relative(appDir, p))
        .sort(),
    ).toEqual([
      "",
      "node_modules/@execution-network/client",
      "node_modules/@noble/curves",
      "node_modules/@noble/hashes",
      "node_modules/canonicalize",
    ]);
  });

  it("verifies a receipt signed as the server signs it, and names the check a forged one fails", async () => {
    const signer = privateKeyToAccount(generatePrivateKey());
    const job = {
      jobId: "job_pack",
      serviceId: "token-count",
      input: { text: "Zürich → 東京", n: 1e3 },
      result: { tokens: 3 },
      attempt: 1,
      creditCost: 1,
      startedAt: "2026-11-27T20:00:00.000Z",
      completedAt: "2026-11-27T20:00:01.500Z",
      assignedNode: { nodeId: "node_pack" },
    };
    const message: ReceiptMessage = {
      issuer: "http://127.0.0.1",
      jobId: job.jobId,
      serviceId: job.serviceId,
      developer: "0x0000000000000000000000000000000000000001",
      inputDigest: receiptDigest(job.input),
      resultDigest: receiptDigest(job.result),
      nodeId: job.assignedNode.nodeId,
      ownNode: false,
      attempt: job.attempt,
      creditCost: job.creditCost,
      startedAt: Date.parse(job.startedAt),
      completedAt: Date.parse(job.completedAt),
    };
    const signature = await signer.signTypedData({
      domain: receiptDomain,
      types: receiptTypes,
      primaryType: receiptPrimaryType,
      message: typedReceiptMessage(message),
    });
    const receipt = {
      domain: receiptDomain,
      types: receiptTypes,
      primaryType: receiptPrimaryType,
      message,
      signature,
      signer: signer.address,
    };
    await writeFile(path.join(appDir, "receipt.json"), JSON.stringify({ job, receipt }));
    const script = path.join(appDir, "verify-receipt.mjs");
    await writeFile(
      script,
      `import { readFileSync } from "node:fs";
import { verifyReceipt } from "@execution-network/client";
const { job, receipt } = JSON.parse(readFileSync("receipt.json", "utf8"));
const signers = { current: receipt.signer, previous: [] };
const check = (receipt) => { try { verifyReceipt(job, receipt, { signers }); return "ok"; } catch (e) { return e.check; } };
console.log(JSON.stringify([check(receipt), check({ ...receipt, message: { ...receipt.message, ownNode: true } })]));
`,
    );
    const { stdout } = await run("node", [script], { cwd: appDir });
    expect(JSON.parse(stdout)).toEqual(["ok", "signature"]);
  });

  it("type-checks, with the README's examples, in a Node-only TypeScript project through the exports map", async () => {
    const readme = await readFile(path.join(packageDir, "README.md"), "utf8");
    const examples = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
    expect(examples.length).toBeGreaterThanOrEqual(6);
    await Promise.all(examples.map((code, i) => writeFile(path.join(appDir, `readme-${i}.ts`), code)));
    await writeFile(
      path.join(appDir, "consumer.ts"),
      `import { ExecutionClient, isApiError, type ExecutionJob } from "@execution-network/client";
const client = new ExecutionClient({ apiKey: "dev_x", baseUrl: "http://127.0.0.1:1" });
// Node's own fetch (and wrappers of it) fit the fetch option.
export const withGlobalFetch = new ExecutionClient({ apiKey: "dev_x", baseUrl: "http://127.0.0.1:1", fetch });
export const withWrapper = new ExecutionClient({ apiKey: "dev_x", baseUrl: "http://127.0.0.1:1", fetch: (url, init) => fetch(url, init) });
export async function run(): Promise<ExecutionJob["status"]> {
  try {
    const job = await client.execute("token-count", { text: "hi" });
    return (await client.waitForJob(job.jobId)).status;
  } catch (error) {
    if (isApiError(error, "INSUFFICIENT_CREDITS")) return "failed";
    throw error;
  }
}
`,
    );
    const tsconfig = {
      compilerOptions: {
        module: "nodenext",
        moduleResolution: "nodenext",
        target: "es2022",
        lib: ["es2022"],
        strict: true,
        noEmit: true,
        types: ["node"],
        typeRoots: [path.join(repo, "node_modules/@types")],
      },
      files: ["consumer.ts", ...examples.map((_, i) => `readme-${i}.ts`)],
    };
    await writeFile(path.join(appDir, "tsconfig.json"), JSON.stringify(tsconfig));
    await expect(run(bin("tsc"), ["-p", appDir], { cwd: appDir })).resolves.toBeTruthy();
  }, 60_000);

  it("stays small: packed and minified+gzipped sizes within budget, its own code and with its dependencies", async ({
    annotate,
  }) => {
    const entry = path.join(appDir, "node_modules/@execution-network/client/dist/index.js");
    const minify = async (...flags: string[]) => {
      const { stdout } = await run(
        bin("esbuild"),
        [entry, "--bundle", "--minify", "--format=esm", "--platform=node", ...flags],
        { maxBuffer: 10 * 1024 * 1024 },
      );
      return { minified: stdout.length, minGz: gzipSync(stdout).length };
    };
    const own = await minify(...Object.keys(dependencyRanges).map((name) => `--external:${name}`));
    const whole = await minify();
    await annotate(
      `packed ${packed.size} B (unpacked ${packed.unpackedSize} B); own code minified ${own.minified} B, ` +
        `min+gz ${own.minGz} B; with its dependencies minified ${whole.minified} B, min+gz ${whole.minGz} B`,
    );
    expect(packed.size).toBeLessThan(40 * 1024);
    expect(own.minGz).toBeLessThan(10 * 1024);
    // noble's secp256k1 and Keccak-256 are most of the rest (about 13 KB min+gz at 1.9.1).
    expect(whole.minGz).toBeLessThan(28 * 1024);
  });
});
