import { withApi } from "@/lib/http/api";
import { scrapeMetrics } from "@/lib/http/metrics-endpoint";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.metrics, async (req) => scrapeMetrics(req.headers.get("authorization")));

export * from "@/lib/http/other-methods";
