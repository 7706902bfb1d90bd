import { listTopUps, submitTopUp } from "@/lib/domain/top-ups";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

const noStore = { "cache-control": "no-store" };

export const GET = withApi(routes.listTopUps, async (_req, { principal, query, json }) =>
  json(await listTopUps(principal.accountId, query), { headers: noStore }),
);

export const POST = withApi(routes.submitTopUp, async (_req, { principal, body, json }) => {
  const { topUp, created } = await submitTopUp(principal.accountId, principal.address, body);
  return json(topUp, { status: created ? 201 : 200, headers: noStore });
});

export * from "@/lib/http/other-methods";
