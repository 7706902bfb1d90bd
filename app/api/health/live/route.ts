import { json, withApi } from "@/lib/http/api";

// Liveness: the process answers (no database round trip). /api/health is readiness.
export const GET = withApi(async () => json({ status: "ok" }, { headers: { "cache-control": "no-store" } }));
