import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentSession } from "@/lib/http/page-session";
import { CreditsPanel } from "@/components/credits/credits-panel";
import { PageHeader } from "@/components/dashboard/page-header";
import { pageQuery } from "@/lib/contract/schemas";
import { getCreditBalance, listCreditHistory } from "@/lib/domain/credits";

export const metadata: Metadata = { title: "Credits" };

const historyPageSize = 20;

export default async function CreditsPage({ searchParams }: { searchParams: Promise<{ page?: string | string[] }> }) {
  const session = await currentSession();
  if (!session) redirect("/sign-in");
  const { page: pageParam } = await searchParams;
  // The API's own page rule; a page the API would refuse shows the first one.
  const parsedPage = pageQuery.shape.page.safeParse(Array.isArray(pageParam) ? pageParam[0] : pageParam);
  const page = parsedPage.success ? parsedPage.data : 1;
  const [balance, history] = await Promise.all([
    getCreditBalance(session.accountId),
    listCreditHistory(session.accountId, { page, limit: historyPageSize }),
  ]);
  return (
    <>
      <PageHeader
        title="Credits"
        description="Each job costs its service's credits when it is created; a job that fails is refunded."
      />
      <CreditsPanel balance={balance} history={history} />
    </>
  );
}
