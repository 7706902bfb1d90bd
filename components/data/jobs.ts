// Jobs from the dashboard: Run through the dashboard's server (which holds the key).
import { apiFetch } from "./fetch-api";
import type { ExecutionJob, Placement } from "./types";

/** Submits a job of `serviceId`; one idempotency key per intent makes a double click one job. */
export const runService = (
  serviceId: string,
  input: Record<string, unknown>,
  idempotencyKey: string,
  placement: Placement = "any",
) =>
  apiFetch<ExecutionJob>(`/api/dashboard/services/${encodeURIComponent(serviceId)}/run`, {
    method: "POST",
    body: placement === "any" ? { input } : { input, placement },
    headers: { "idempotency-key": idempotencyKey },
  });
