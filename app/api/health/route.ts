import { sql } from "drizzle-orm";
import { db } from "@/lib/domain/ready";
import { json, withApi } from "@/lib/http/api";
import { liveNodeCount } from "@/lib/network/coordinator";

export const dynamic = "force-dynamic";

export const GET = withApi(async () => {
  try {
    await (await db()).execute(sql`select 1`);
    return json({ status: "ok", database: "ok", nodes: await liveNodeCount() }, { headers: { "cache-control": "no-store" } });
  } catch {
    return json({ status: "unavailable", database: "unavailable", nodes: 0 }, { status: 503, headers: { "retry-after": "5" } });
  }
});
