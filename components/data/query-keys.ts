// TanStack Query keys, in one place so mutations invalidate exactly what they change.
export const queryKeys = {
  profile: ["profile"] as const,
  keys: ["keys"] as const,
  jobs: (query: string) => ["jobs", "list", query] as const,
  /** Every job query (lists, a job's pages), to refresh after a Run. */
  allJobs: ["jobs"] as const,
  /** The prefix of every webhook query (components/webhooks/webhook-api.ts keys under it). */
  webhooks: ["webhooks"] as const,
};
