import { sql } from "drizzle-orm";
import { db } from "@/lib/domain/database";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";
import { liveNodeCount } from "@/lib/network/coordinator";
import { paymentsHealth } from "@/lib/payments/watcher";
import { settlerHealth } from "@/lib/payments/x402/settler-health";
import { transferLogState } from "@/lib/payments/x402/transfer-log-side";
import { x402Config } from "@/lib/env";
import { servingState } from "@/lib/serving";

const noStore = { "cache-control": "no-store" };

export const GET = withApi(routes.health, async (_req, { json }) => {
  // Readiness: a server still starting (opening and migrating the database) is not ready yet.
  if (servingState() === "pending") {
    return json(
      { status: "starting", database: "starting", nodes: 0 },
      { status: 503, headers: { ...noStore, "retry-after": "1" } },
    );
  }
  try {
    await (await db()).execute(sql`select 1`);
    const x402 = x402Config();
    return json(
      {
        status: "ok",
        database: "ok",
        nodes: await liveNodeCount(),
        payments: paymentsHealth(),
        settler: await settlerHealth(),
        ...(x402 && { transferLog: await transferLogState(x402) }),
      },
      { headers: noStore },
    );
  } catch {
    return json(
      { status: "unavailable", database: "unavailable", nodes: 0 },
      { status: 503, headers: { ...noStore, "retry-after": "5" } },
    );
  }
});

export * from "@/lib/http/other-methods";
