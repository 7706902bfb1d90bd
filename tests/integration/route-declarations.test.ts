// Every route is declared once (lib/http/routes.ts) and its route.ts serves exactly that declaration: the
// OpenAPI document and withApi read the same object, so nothing is documented that is not served, and
// nothing is served that is not declared.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import * as otherMethods from "@/lib/http/other-methods";
import type { RouteSpec } from "@/lib/http/routes";
import { routes } from "@/lib/http/routes";
import { findRoutes, type RouteEntry } from "../support/route-table";

const httpMethods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
const apiDir = path.resolve(import.meta.dirname, "../../app/api");
const isCatchAll = (entry: RouteEntry) => entry.segments.some((s) => s.startsWith("[..."));
/** The OpenAPI form of a route folder: app/api/developers/jobs/[jobId] → /api/developers/jobs/{jobId}. */
const pathOf = (entry: RouteEntry) => "/" + entry.segments.map((s) => s.replace(/^\[(.+)\]$/, "{$1}")).join("/");

type Exported = { route?: RouteSpec };
const refusals = new Set<unknown>(Object.values(otherMethods));

async function moduleOf(entry: RouteEntry): Promise<Record<string, unknown>> {
  return (await import(/* @vite-ignore */ pathToFileURL(entry.file).href)) as Record<string, unknown>;
}

/** The file's own handlers: those that are not lib/http/other-methods.ts's answers for the methods it lacks. */
async function exportsOf(entry: RouteEntry): Promise<[string, Exported][]> {
  const routeModule = await moduleOf(entry);
  return httpMethods
    .filter((m) => typeof routeModule[m] === "function" && !refusals.has(routeModule[m]))
    .map((m) => [m, routeModule[m] as Exported]);
}

const files = findRoutes(apiDir);
const declared = files.filter((entry) => !isCatchAll(entry));

describe("route declarations", () => {
  it("finds the app's route files", () => {
    expect(declared.length).toBeGreaterThanOrEqual(30);
  });

  it.each(declared.map((entry) => [path.relative(apiDir, entry.file), entry] as const))(
    "app/api/%s serves each method through withApi with its own declaration",
    async (_file, entry) => {
      const handlers = await exportsOf(entry);
      expect(handlers.length).toBeGreaterThan(0);
      for (const [method, handler] of handlers) {
        expect(handler.route, `${method} ${pathOf(entry)} has no declaration`).toBeDefined();
        expect({ method: handler.route?.method, path: handler.route?.path }).toEqual({
          method: method.toLowerCase(),
          path: pathOf(entry),
        });
      }
    },
  );

  it.each(declared.map((entry) => [path.relative(apiDir, entry.file), entry] as const))(
    "app/api/%s answers every other method in the envelope (it re-exports lib/http/other-methods.ts)",
    async (_file, entry) => {
      const routeModule = await moduleOf(entry);
      for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
        expect(typeof routeModule[method], `${method} ${pathOf(entry)}`).toBe("function");
    },
  );

  it("serves every declaration from exactly one route file", async () => {
    const served: RouteSpec[] = [];
    for (const entry of declared) {
      for (const [, handler] of await exportsOf(entry)) if (handler.route) served.push(handler.route);
    }
    const all = Object.values(routes) as RouteSpec[];
    expect(served).toHaveLength(all.length);
    expect(new Set(served)).toEqual(new Set(all));
  });

  it("declares each method and path once", () => {
    const keys = (Object.values(routes) as RouteSpec[]).map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("asks API keys for a scope on every apiKey and either route", () => {
    for (const route of Object.values(routes) as RouteSpec[]) {
      if (
        route.credential === "apiKey" ||
        route.credential === "apiKeyOrPayment" ||
        route.credential === "either" ||
        route.credential === "jobReader"
      )
        expect(route.scope, `${route.method} ${route.path}`).toBeTruthy();
    }
  });
});
