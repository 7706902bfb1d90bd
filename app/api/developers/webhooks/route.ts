import { createWebhookEndpoint, listWebhookEndpoints } from "@/lib/domain/webhooks";
import { json, withApi } from "@/lib/http/api";
import { readJson } from "@/lib/http/body";
import { requireDeveloper } from "@/lib/http/guards";
import { CreateWebhookRequest } from "@/lib/http/schemas";

export const dynamic = "force-dynamic";

export const GET = withApi(async (req) => {
  const { accountId } = await requireDeveloper(req, "webhooks:manage");
  return json(await listWebhookEndpoints(accountId));
});

export const POST = withApi(async (req) => {
  const { accountId } = await requireDeveloper(req, "webhooks:manage");
  const input = await readJson(req, CreateWebhookRequest);
  return json(await createWebhookEndpoint(accountId, input), { status: 201, headers: { "cache-control": "no-store" } });
});
