// TanStack Query keys, in one place so mutations invalidate exactly what they change.
export const queryKeys = {
  profile: ["profile"] as const,
  keys: ["keys"] as const,
  balance: ["credits", "balance"] as const,
  history: (page: number, limit: number) => ["credits", "history", { page, limit }] as const,
  services: ["services"] as const,
  jobs: (query: string) => ["jobs", "list", query] as const,
};
