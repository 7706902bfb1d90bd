import type { Metadata } from "next";
import { requireSession } from "@/lib/http/page-session";
import { CreditsPanel } from "@/components/credits/credits-panel";
import { TopUpsSection, type TopUpsAvailability } from "@/components/credits/top-ups-section";
import { PageHeader } from "@/components/dashboard/page-header";
import { cursorPageQuery } from "@/lib/contract/schemas";
import { getCreditBalance, listCreditHistory } from "@/lib/domain/credits";
import { DomainError } from "@/lib/domain/errors";
import { listTopUps, topUpConfig } from "@/lib/domain/top-ups";
import { paymentsConfig } from "@/lib/env";
import { walletChainOf } from "@/lib/payments/chain-info";

export const metadata: Metadata = { title: "Credits" };

const historyPageSize = 20;

async function topUpsAvailability(accountId: string): Promise<TopUpsAvailability> {
  try {
    const config = await topUpConfig();
    if (!config.enabled) return { state: "disabled" };
    const chain = walletChainOf(config.chainId, paymentsConfig()?.explorerUrl);
    return { state: "enabled", config, chain, initial: await listTopUps(accountId, { page: 1, limit: 10 }) };
  } catch (error) {
    // The token's metadata comes from the RPC: while it does not answer, the rest of the page still serves.
    if (error instanceof DomainError && error.code === "UNAVAILABLE") return { state: "unavailable" };
    throw error;
  }
}

const historyQuery = cursorPageQuery("creditEntries");
const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export default async function CreditsPage({
  searchParams,
}: {
  searchParams: Promise<{ page?: string | string[]; after?: string | string[]; add?: string | string[] }>;
}) {
  const session = await requireSession();
  const { page: pageParam, after: afterParam, add } = await searchParams;
  // The API's own page and cursor rules; a page or cursor the API would refuse shows the first page.
  const query = historyQuery.safeParse({
    page: first(pageParam),
    after: first(afterParam),
    limit: String(historyPageSize),
  });
  const at = query.success ? query.data : { page: 1, limit: historyPageSize };
  const [balance, history, topUps] = await Promise.all([
    getCreditBalance(session.accountId),
    listCreditHistory(session.accountId, at),
    topUpsAvailability(session.accountId),
  ]);
  return (
    <>
      <PageHeader
        title="Credits"
        description="Each job costs its service's credits when it is created; a job that fails is refunded. Buy more with your wallet."
      />
      <CreditsPanel
        balance={balance}
        history={history}
        topUps={<TopUpsSection availability={topUps} sessionAddress={session.address} openAdd={add === "1"} />}
      />
    </>
  );
}
