// The dashboard's webhook reads and writes: types from the wire schemas, query keys, hooks.
import type { z } from "zod";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/components/data/fetch-api";
import type * as schemas from "@/lib/contract/schemas";

export type WebhookEndpoint = z.infer<typeof schemas.WebhookEndpoint>;
export type WebhookEndpointWithSecret = z.infer<typeof schemas.WebhookEndpointWithSecret>;
export type WebhookDelivery = z.infer<typeof schemas.WebhookDelivery>;
export type WebhookDeliveryPage = z.infer<typeof schemas.WebhookDeliveryPage>;
export type WebhookEventType = z.infer<typeof schemas.WebhookEventType>;

export const webhookKeys = {
  all: ["webhooks"] as const,
  endpoints: ["webhooks", "endpoints"] as const,
  /** Every page of one endpoint's deliveries. */
  deliveriesOf: (endpointId: string) => ["webhooks", "deliveries", endpointId] as const,
  deliveries: (endpointId: string, page: number) => ["webhooks", "deliveries", endpointId, { page }] as const,
  job: (jobId: string) => ["webhooks", "job", jobId] as const,
};

const base = "/api/developers/webhooks";

export const useWebhookEndpoints = ({ enabled = true }: { enabled?: boolean } = {}) =>
  useQuery({
    queryKey: webhookKeys.endpoints,
    queryFn: ({ signal }) => apiFetch<WebhookEndpoint[]>(base, { signal }),
    enabled,
  });

/** Deliveries change while you look (pending → succeeded): refreshed every few seconds. */
export const useWebhookDeliveries = (endpointId: string, page: number, limit = 20) =>
  useQuery({
    queryKey: webhookKeys.deliveries(endpointId, page),
    queryFn: ({ signal }) =>
      apiFetch<WebhookDeliveryPage>(`${base}/${endpointId}/deliveries?page=${page}&limit=${limit}`, { signal }),
    placeholderData: keepPreviousData,
    refetchInterval: 3_000,
  });

export const useJobWebhookDeliveries = (jobId: string) =>
  useQuery({
    queryKey: webhookKeys.job(jobId),
    queryFn: ({ signal }) =>
      apiFetch<WebhookDelivery[]>(`/api/developers/jobs/${jobId}/webhook-deliveries`, { signal }),
    refetchInterval: 3_000,
  });

export const webhookActions = {
  create: (body: { url: string; events: WebhookEventType[]; description?: string }) =>
    apiFetch<WebhookEndpointWithSecret>(base, { method: "POST", body }),
  update: (endpointId: string, body: Partial<Pick<WebhookEndpoint, "url" | "events" | "description" | "status">>) =>
    apiFetch<WebhookEndpoint>(`${base}/${endpointId}`, { method: "PATCH", body }),
  remove: (endpointId: string) => apiFetch<void>(`${base}/${endpointId}`, { method: "DELETE" }),
  rotate: (endpointId: string) =>
    apiFetch<WebhookEndpointWithSecret>(`${base}/${endpointId}/rotate-secret`, { method: "POST" }),
  test: (endpointId: string) => apiFetch<WebhookDelivery>(`${base}/${endpointId}/test`, { method: "POST" }),
  redeliver: (endpointId: string, deliveryId: string) =>
    apiFetch<WebhookDelivery>(`${base}/${endpointId}/deliveries/${deliveryId}/redeliver`, { method: "POST" }),
};
