// GET /api/metrics: the bearer check (METRICS_TOKEN, compared in constant time) and the scrape, which sets the
// deployment-wide gauges from one database read (and the settler's balance from the read health shares) before
// prom-client writes the exposition.
import { createHash, timingSafeEqual } from "node:crypto";
import { DomainError } from "@/lib/domain/errors";
import { env, x402Config } from "@/lib/env";
import { metrics, setDeploymentGauges, setSettlerBalance, setTransferLogContradicted } from "@/lib/metrics";
import { deploymentGauges } from "@/lib/network/coordinator";
import { settlerBalanceWei } from "@/lib/payments/x402/settler-health";
import { transferLogState } from "@/lib/payments/x402/transfer-log-side";

const digest = (value: string) => createHash("sha256").update(value).digest();

/** Whether `authorization` is `Bearer <expected>`; digests make the comparison constant-time whatever the lengths. */
export function bearerMatches(authorization: string | null, expected: string): boolean {
  const presented = /^Bearer (.+)$/i.exec(authorization ?? "")?.[1] ?? "";
  return timingSafeEqual(digest(presented), digest(expected)) && presented.length > 0;
}

export async function scrapeMetrics(authorization: string | null): Promise<Response> {
  const expected = env().METRICS_TOKEN;
  if (!expected) throw new DomainError("NOT_FOUND", "No route matches GET /api/metrics.");
  if (!bearerMatches(authorization, expected))
    throw new DomainError("UNAUTHENTICATED", "The metrics need Authorization: Bearer <METRICS_TOKEN>.");
  setDeploymentGauges(await deploymentGauges());
  setSettlerBalance(await settlerBalanceWei());
  const x402 = x402Config();
  setTransferLogContradicted(x402 && (await transferLogState(x402)));
  const { registry } = metrics();
  return new Response(await registry.metrics(), {
    headers: { "content-type": registry.contentType, "cache-control": "no-store" },
  });
}
