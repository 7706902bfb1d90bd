import { listServices } from "@/lib/domain/services";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.listServices, async (_req, { json }) => json(await listServices()));

export * from "@/lib/http/other-methods";
