// Running a service from the dashboard (its playground): through the dashboard's server, which holds the
// key. The services themselves are read on the server with each page; a Run changes jobs and credits.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { creditKeys } from "./credits";
import { apiFetch } from "./fetch-api";
import { jobKeys } from "./jobs";
import { ensureProfile, rememberProfile } from "./profile";
import type { ExecutionJob, Placement } from "./types";

export interface ServiceRun {
  input: Record<string, unknown>;
  /** One key per intent: a double click or a retry of the same Run is one job. */
  idempotencyKey: string;
  /** Set when the developer has no profile yet: the Run creates it with this name first. */
  newProfileName?: string;
  /** Where the job may run (CONTRACT §12); default "any". */
  placement?: Placement;
}

/** Submits a job of `serviceId`; the new job is in the answer (a queued job: it moves on its own page). */
export function useRunService(serviceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ input, idempotencyKey, newProfileName, placement = "any" }: ServiceRun) => {
      if (newProfileName !== undefined) rememberProfile(queryClient, await ensureProfile(newProfileName));
      return apiFetch<ExecutionJob>(`/api/dashboard/services/${encodeURIComponent(serviceId)}/run`, {
        method: "POST",
        body: placement === "any" ? { input } : { input, placement },
        headers: { "idempotency-key": idempotencyKey },
      });
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: jobKeys.all });
      void queryClient.invalidateQueries({ queryKey: creditKeys.balance });
    },
  });
}
