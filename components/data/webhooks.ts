// Webhooks in the dashboard: endpoints and their deliveries (which change while you look: pending →
// succeeded), one delivery's request and attempts, one job's deliveries, and the writes with what each one
// changes.
import type { PageLink } from "@/components/dashboard/page-links";
import { keepPreviousData, partialMatchKey, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiFetch } from "./fetch-api";
import type {
  CreateWebhookRequest,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookDeliveryPage,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from "./types";

export const webhookKeys = {
  all: ["webhooks"] as const,
  endpoints: ["webhooks", "endpoints"] as const,
  /** Every page of one endpoint's deliveries. */
  deliveriesOf: (endpointId: string) => ["webhooks", "deliveries", endpointId] as const,
  deliveries: (endpointId: string, at: PageLink) => ["webhooks", "deliveries", endpointId, at] as const,
  /** Under its endpoint's deliveries: it goes with them when the endpoint is deleted. */
  delivery: (endpointId: string, deliveryId: string) =>
    ["webhooks", "deliveries", endpointId, "detail", deliveryId] as const,
  job: (jobId: string) => ["webhooks", "job", jobId] as const,
};

const base = "/api/developers/webhooks";
const endpointPath = (endpointId: string) => `${base}/${encodeURIComponent(endpointId)}`;
/** Deliveries move on their own (retries, a receiver answering): read again every few seconds. */
const deliveriesRefreshMs = 3_000;

export const useWebhookEndpoints = ({ enabled = true }: { enabled?: boolean } = {}) =>
  useQuery({
    queryKey: webhookKeys.endpoints,
    queryFn: ({ signal }) => apiFetch<WebhookEndpoint[]>(base, { signal }),
    enabled,
  });

export const useWebhookDeliveries = (endpointId: string, at: PageLink, limit = 20) =>
  useQuery({
    queryKey: webhookKeys.deliveries(endpointId, at),
    queryFn: ({ signal }) => {
      const query = new URLSearchParams({
        page: String(at.page),
        limit: String(limit),
        ...(at.after ? { after: at.after } : {}),
      });
      return apiFetch<WebhookDeliveryPage>(`${endpointPath(endpointId)}/deliveries?${query}`, { signal });
    },
    placeholderData: keepPreviousData,
    refetchInterval: deliveriesRefreshMs,
  });

/** One delivery's request and attempts; read again while it is pending (a retry adds an attempt). */
export const useWebhookDelivery = (endpointId: string, deliveryId: string) =>
  useQuery({
    queryKey: webhookKeys.delivery(endpointId, deliveryId),
    queryFn: ({ signal }) =>
      apiFetch<WebhookDeliveryDetail>(`${endpointPath(endpointId)}/deliveries/${encodeURIComponent(deliveryId)}`, {
        signal,
      }),
    refetchInterval: (query) => (query.state.data?.status === "pending" ? deliveriesRefreshMs : false),
  });

export const useJobWebhookDeliveries = (jobId: string) =>
  useQuery({
    queryKey: webhookKeys.job(jobId),
    queryFn: ({ signal }) =>
      apiFetch<WebhookDelivery[]>(`/api/developers/jobs/${encodeURIComponent(jobId)}/webhook-deliveries`, { signal }),
    refetchInterval: deliveriesRefreshMs,
  });

/** Every webhook query read again: an endpoint's change shows in the list and in its deliveries. */
const useRefreshWebhooks = () => {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: webhookKeys.all });
};

/** Adds an endpoint; its signing secret is in the answer (and shown once). */
export function useCreateWebhookEndpoint() {
  const refresh = useRefreshWebhooks();
  return useMutation({
    mutationFn: (body: CreateWebhookRequest) => apiFetch<WebhookEndpointWithSecret>(base, { method: "POST", body }),
    onSuccess: () => void refresh(),
  });
}

export type WebhookEndpointAction = "test" | "toggle" | "rotate";

/**
 * An endpoint's row actions as one mutation, so their outcome (and failure) shows in one place: send a test
 * event, enable or disable it, rotate its secret (the answer carries the new secret; the others, null).
 */
export function useWebhookEndpointAction() {
  const refresh = useRefreshWebhooks();
  return useMutation({
    mutationFn: async ({ endpoint, action }: { endpoint: WebhookEndpoint; action: WebhookEndpointAction }) => {
      const path = endpointPath(endpoint.endpointId);
      switch (action) {
        case "test":
          await apiFetch<WebhookDelivery>(`${path}/test`, { method: "POST" });
          return null;
        case "toggle":
          await apiFetch<WebhookEndpoint>(path, {
            method: "PATCH",
            body: { status: endpoint.status === "enabled" ? "disabled" : "enabled" },
          });
          return null;
        case "rotate":
          return apiFetch<WebhookEndpointWithSecret>(`${path}/rotate-secret`, { method: "POST" });
      }
    },
    onSuccess: () => refresh(),
  });
}

/** Sends one delivery of `endpointId` again. */
export function useRedeliverWebhook(endpointId: string) {
  const refresh = useRefreshWebhooks();
  return useMutation({
    mutationFn: (deliveryId: string) =>
      apiFetch<WebhookDelivery>(`${endpointPath(endpointId)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`, {
        method: "POST",
      }),
    onSuccess: () => refresh(),
  });
}

/**
 * Deletes an endpoint (its pending deliveries are dropped). It leaves the list at once, so its deliveries
 * (gone with it: 404) are no longer shown nor asked for; the rest is refreshed before the mutation settles,
 * so a dialog waiting on it stays busy until then and cannot delete twice.
 */
export function useDeleteWebhookEndpoint(endpointId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => apiFetch<void>(endpointPath(endpointId), { method: "DELETE" }),
    onSuccess: async () => {
      const gone = webhookKeys.deliveriesOf(endpointId);
      queryClient.setQueryData<WebhookEndpoint[]>(webhookKeys.endpoints, (list) =>
        list?.filter((e) => e.endpointId !== endpointId),
      );
      await queryClient.cancelQueries({ queryKey: gone });
      queryClient.removeQueries({ queryKey: gone });
      await queryClient.invalidateQueries({
        queryKey: webhookKeys.all,
        predicate: (query) => !partialMatchKey(query.queryKey, gone),
      });
    },
  });
}
