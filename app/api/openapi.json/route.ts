import { withApi } from "@/lib/http/api";
import { openApiDocument } from "@/lib/http/openapi";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.openApiDocument, async (_req, { json }) => json(openApiDocument()));

export * from "@/lib/http/other-methods";
