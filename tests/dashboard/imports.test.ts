// The dashboard's house rules, read from the source: components reach the server only through the wire
// contract (never the domain, the engine, the database or the network), and only components/data talks to
// the API or to TanStack Query's cache — every other component uses its hooks, so a query key, a request or a
// mutation's invalidations are written once, in the module of their resource.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const components = path.join(root, "components");
const dataLayer = path.join(components, "data");

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|tsx)$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

const relative = (file: string) => path.relative(root, file);

/** Every module specifier a file imports or re-exports (static, dynamic and type-only alike). */
function importsOf(source: string): string[] {
  const specifiers = [...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)].map((m) => m[1]);
  return specifiers.filter((s): s is string => s !== undefined);
}

/** Where an import lands, as a path from the project's root ("@/x" and relative paths resolved). */
function targetOf(file: string, specifier: string): string | null {
  if (specifier.startsWith("@/")) return specifier.slice(2);
  if (specifier.startsWith(".")) return path.relative(root, path.resolve(path.dirname(file), specifier));
  return null;
}

/** What components may import from lib/: the wire contract and the SDK's types. */
const isAllowedLib = (target: string) => target.startsWith("lib/contract/") || target.startsWith("lib/client/");

/** A component that spells one of these talks to the API or the cache itself. */
const dataAccess: { pattern: RegExp; what: string }[] = [
  { pattern: /\bfetch\s*\(/, what: "fetch(" },
  { pattern: /\bapiFetch\b/, what: "apiFetch" },
  { pattern: /\bnew EventSource\b/, what: "new EventSource" },
  { pattern: /\bqueryKey\s*:/, what: "queryKey:" },
  { pattern: /\buse(Suspense|Infinite)?Query\s*\(/, what: "useQuery(" },
  { pattern: /\buseMutation\s*\(/, what: "useMutation(" },
  { pattern: /\buseQueryClient\s*\(/, what: "useQueryClient(" },
];

describe("the dashboard's components", () => {
  const files = sourcesUnder(components);

  it("are found (the rules below read real files)", () => {
    expect(files.length).toBeGreaterThan(50);
    expect(files.map(relative)).toContain("components/data/jobs.ts");
  });

  it("import nothing from lib/ but the wire contract (lib/contract) and the SDK", () => {
    const offending = files.flatMap((file) =>
      importsOf(readFileSync(file, "utf8"))
        .map((specifier) => targetOf(file, specifier))
        .filter((target): target is string => target !== null && target.startsWith("lib/") && !isAllowedLib(target))
        .map((target) => `${relative(file)} imports ${target}`),
    );
    expect(offending).toEqual([]);
  });

  it("reach the API and the query cache only through components/data", () => {
    const offending = files
      .filter((file) => !file.startsWith(dataLayer + path.sep))
      .flatMap((file) => {
        const source = readFileSync(file, "utf8");
        return dataAccess.filter(({ pattern }) => pattern.test(source)).map(({ what }) => `${relative(file)}: ${what}`);
      });
    expect(offending).toEqual([]);
  });
});

describe("the data layer", () => {
  const modules = sourcesUnder(dataLayer).filter((file) => !file.endsWith(".test.ts"));

  it("spells no literal query key: every key comes from its resource's key factory", () => {
    const offending = modules.flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .map((line, i) => ({ line, at: `${relative(file)}:${i + 1}` }))
        .filter(({ line }) => /\bqueryKey\s*:\s*\[/.test(line))
        .map(({ at }) => at),
    );
    expect(offending).toEqual([]);
  });
});
