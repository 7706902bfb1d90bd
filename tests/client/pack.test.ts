// The package as a consumer gets it: `npm pack` (which builds), install the tarball into a bare Node
// project, import it from plain ESM and from TypeScript, and call a real HTTP server.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
  await run("npm", ["install", "--offline", "--no-audit", "--no-fund", path.join(workDir, packed.filename)], {
    cwd: appDir,
  });
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

  it("installs with zero dependencies and lists the services from plain ESM", async () => {
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

    const { stdout: tree } = await run("npm", ["ls", "--all", "--parseable"], { cwd: appDir });
    expect(
      tree
        .trim()
        .split("\n")
        .map((p) => path.relative(appDir, p)),
    ).toEqual(["", "node_modules/@execution-network/client"]);
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

  it("stays small: packed and minified+gzipped sizes within budget", async ({ annotate }) => {
    const entry = path.join(appDir, "node_modules/@execution-network/client/dist/index.js");
    const { stdout: bundle } = await run(
      bin("esbuild"),
      [entry, "--bundle", "--minify", "--format=esm", "--platform=node"],
      { maxBuffer: 10 * 1024 * 1024 },
    );
    const minGz = gzipSync(bundle).length;
    await annotate(
      `packed ${packed.size} B (unpacked ${packed.unpackedSize} B); minified ${bundle.length} B, min+gz ${minGz} B`,
    );
    expect(packed.size).toBeLessThan(40 * 1024);
    expect(minGz).toBeLessThan(10 * 1024);
  });
});
