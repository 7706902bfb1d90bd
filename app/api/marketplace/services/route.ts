import { listServices } from "@/lib/domain/services";
import { json, withApi } from "@/lib/http/api";

export const dynamic = "force-dynamic";

export const GET = withApi(async () => json(await listServices()));
