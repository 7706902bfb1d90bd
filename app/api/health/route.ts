import { sql } from "drizzle-orm";
import { db } from "@/lib/domain/database";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";
import { liveNodeCount } from "@/lib/network/coordinator";

export const GET = withApi(routes.health, async (_req, { json }) => {
  try {
    await (await db()).execute(sql`select 1`);
    return json({ status: "ok", database: "ok", nodes: await liveNodeCount() }, { headers: { "cache-control": "no-store" } });
  } catch {
    return json({ status: "unavailable", database: "unavailable", nodes: 0 }, { status: 503, headers: { "retry-after": "5" } });
  }
});
