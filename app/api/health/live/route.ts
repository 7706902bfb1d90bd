import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

// Liveness: the process answers (no database round trip). /api/health is readiness.
export const GET = withApi(routes.liveness, async (_req, { json }) =>
  json({ status: "ok" }, { headers: { "cache-control": "no-store" } }),
);

export * from "@/lib/http/other-methods";
