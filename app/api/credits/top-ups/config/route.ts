import { topUpConfig } from "@/lib/domain/top-ups";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.getTopUpConfig, async (_req, { json }) => json(await topUpConfig()));

export * from "@/lib/http/other-methods";
