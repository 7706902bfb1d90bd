// The node agent as a developer gets it (CONTRACT §14): `npm pack` the workspace (which builds it), install
// the tarball into a bare directory with nothing else, start it with `npx @execution-network/node` against a
// real server, and watch it run jobs, including the CPU pool's and the models' files found from its own
// folder, then stop cleanly and show offline.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, getJob, waitForStatus, type JobView } from "../support/jobs";
import { withDeveloper } from "../support/with-developer";

const run = promisify(execFile);
const repo = path.resolve(__dirname, "../..");
const packageDir = path.join(repo, "lib/node");
const ctx = withDeveloper({ embeddedNodes: 0 });

interface PackResult {
  filename: string;
  files: { path: string }[];
}

let workDir: string;
let appDir: string;
let packed: PackResult;
let node: ChildProcess | undefined;
let output = "";

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "en-node-pack-"));
  appDir = path.join(workDir, "app");
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", workDir], { cwd: packageDir });
  [packed] = JSON.parse(stdout) as PackResult[];
  await mkdir(appDir);
  await writeFile(path.join(appDir, "package.json"), JSON.stringify({ name: "bare", private: true }));
  // Its dependencies come from the registry (npm's cache once fetched): nothing from this checkout.
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", path.join(workDir, packed.filename)], {
    cwd: appDir,
  });
}, 180_000);

afterAll(async () => {
  if (node?.pid && node.exitCode === null) process.kill(-node.pid, "SIGKILL");
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

const withoutCheckoutBins = (pathList = "") =>
  pathList
    .split(path.delimiter)
    .filter((dir) => !dir.includes("node_modules"))
    .join(path.delimiter);

const nodeState = async (nodeId: string) =>
  ((await (await ctx.dev.session(`/api/developers/nodes/${nodeId}`)).json()) as { state: string }).state;

describe("the packed node package", () => {
  it("holds the built command, its worker, the README and the CHANGELOG, and nothing else", async () => {
    expect(packed.files.map((f) => f.path).sort()).toEqual([
      "CHANGELOG.md",
      "README.md",
      "dist/cli.js",
      "dist/cpu-worker.js",
      "package.json",
    ]);
    const changelog = await readFile(path.join(packageDir, "CHANGELOG.md"), "utf8");
    const { version } = JSON.parse(await readFile(path.join(packageDir, "package.json"), "utf8")) as {
      version: string;
    };
    expect(changelog).toContain(`## ${version}`);
  });

  it("registers with npx from a bare directory, runs its owner's jobs, and shows offline once stopped", async () => {
    const created = await ctx.dev.session("/api/developers/nodes", {
      method: "POST",
      body: JSON.stringify({ name: "laptop", serviceIds: ["token-count", "text-sentiment", "language-detect"] }),
    });
    expect(created.status).toBe(201);
    const { nodeId, token } = (await created.json()) as { nodeId: string; token: string };

    const child: ChildProcess = spawn(
      "npx",
      ["@execution-network/node", "--url", ctx.server.baseUrl, "--token", token, "--concurrency", "2"],
      // Its own directory, and a PATH without this checkout's node_modules/.bin: nothing borrowed.
      {
        cwd: appDir,
        detached: true,
        env: {
          PATH: withoutCheckoutBins(process.env.PATH),
          HOME: process.env.HOME ?? "",
          NODE_ENV: "production",
          LOG_LEVEL: "warn",
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    node = child;
    child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
    const started = await eventually(
      async () => output,
      (out) => out.includes("node-started") || child.exitCode !== null,
    );
    expect(JSON.parse(started.split("\n")[0] ?? "")).toEqual({ event: "node-started", nodeId, version: "0.1.0" });
    expect(await nodeState(nodeId)).toBe("live");

    // Placement own: only this node may run them. A long text goes to the CPU pool's worker (dist/cpu-worker.js).
    const submitted = await Promise.all(
      [
        ["token-count", { text: "count these words ".repeat(400) }],
        ["text-sentiment", { text: "What a wonderful, delightful day. I love it." }],
        ["language-detect", { text: "Le chat dort sur le canapé pendant que la pluie tombe doucement." }],
      ].map(async ([serviceId, input]) => {
        const res = await ctx.dev.withKey(ctx.key, `/api/marketplace/services/${serviceId as string}/execute`, {
          method: "POST",
          body: JSON.stringify({ input, placement: "own" }),
        });
        expect(res.status).toBe(202);
        return (await res.json()) as JobView;
      }),
    );
    const finished = await Promise.all(submitted.map((j) => waitForStatus(ctx.dev, ctx.key, j.jobId)));
    expect(finished.map((j) => [j.serviceId, j.status])).toEqual([
      ["token-count", "completed"],
      ["text-sentiment", "completed"],
      ["language-detect", "completed"],
    ]);
    const [counted, sentiment, language] = await Promise.all(submitted.map((j) => getJob(ctx.dev, ctx.key, j.jobId)));
    expect(counted?.result?.output).toMatchObject({ tokens: expect.any(Number) });
    expect(sentiment?.result?.output).toMatchObject({ label: "positive" });
    expect(language?.result?.output).toMatchObject({ iso6393: "fra" });

    // SIGTERM to the group, as a terminal's Ctrl-C or a supervisor would (npx itself goes at once).
    process.kill(-(child.pid ?? 0), "SIGTERM");
    expect(
      await eventually(
        () => nodeState(nodeId),
        (state) => !["live", "draining"].includes(state),
        15_000,
      ),
    ).toBe("offline");
    expect(output).not.toMatch(/"level":"(warn|error)"/);
  }, 120_000);
});
