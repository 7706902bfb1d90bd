import { json, withApi } from "@/lib/http/api";
import { openApiDocument } from "@/lib/http/openapi";

export const GET = withApi(async () => json(openApiDocument()));
