import { deleteWebhookEndpoint, getWebhookEndpoint, updateWebhookEndpoint } from "@/lib/domain/webhooks";
import { json, noContent, withApi } from "@/lib/http/api";
import { readJson } from "@/lib/http/body";
import { requireDeveloper } from "@/lib/http/guards";
import { UpdateWebhookRequest } from "@/lib/http/schemas";

export const dynamic = "force-dynamic";

type Params = { endpointId: string };

export const GET = withApi<Params>(async (req, { params }) => {
  const { accountId } = await requireDeveloper(req, "webhooks:manage");
  return json(await getWebhookEndpoint(accountId, params.endpointId));
});

export const PATCH = withApi<Params>(async (req, { params }) => {
  const { accountId } = await requireDeveloper(req, "webhooks:manage");
  const patch = await readJson(req, UpdateWebhookRequest);
  return json(await updateWebhookEndpoint(accountId, params.endpointId, patch));
});

export const DELETE = withApi<Params>(async (req, { params }) => {
  const { accountId } = await requireDeveloper(req, "webhooks:manage");
  await deleteWebhookEndpoint(accountId, params.endpointId);
  return noContent();
});
