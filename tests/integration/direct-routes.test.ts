// The routes `next start` answers beside Next.js's router (lib/http/direct-routes.ts) are the submissions,
// and they take only requests that Next.js's router would send to the very handler they run.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { directRoutes } from "@/app/api/direct-routes";
import { directRouteTable } from "@/lib/http/direct-routes";
import { findRoutes, matchRoute, type RouteModule } from "../support/route-table";

describe("the app's direct routes", () => {
  const apiDir = path.resolve(import.meta.dirname, "../../app/api");
  const files = findRoutes(apiDir);
  const match = directRouteTable(directRoutes);
  const load = (file: string) => import(/* @vite-ignore */ pathToFileURL(file).href) as Promise<RouteModule>;

  it("are the submission routes", () => {
    expect(directRoutes.map((h) => `${h.route.method} ${h.route.path}`).sort()).toEqual([
      "post /api/developers/jobs",
      "post /api/marketplace/services/{id}/execute",
    ]);
  });

  // Every route file's path with sample parameters (plain, escaped, and a value that is also a fixed segment's
  // name), under every method: wherever a direct route matches, Next.js's router picks the file that exports
  // that very handler for that method, with the same parameters.
  const samples = ["x", "a%2Fb", "jobs", "execute", "%E2%82%AC"];
  const urls = files.flatMap(({ segments }) =>
    samples.map((sample) => "/" + segments.map((s) => (s.startsWith("[") ? sample : s)).join("/")),
  );
  it.each(["GET", "POST", "PUT", "PATCH", "DELETE"])("agree with Next.js's router on %s", async (method) => {
    let matched = 0;
    for (const url of urls) {
      const direct = match(method, url);
      if (!direct) continue;
      matched += 1;
      const routed = matchRoute(files, url);
      expect(routed, url).toBeDefined();
      expect((await load(routed!.route.file))[method], `${method} ${url}`).toBe(direct.handler);
      expect(direct.params).toEqual(routed!.params);
    }
    if (method === "POST") expect(matched).toBeGreaterThan(0);
  });
});
