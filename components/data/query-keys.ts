// TanStack Query keys, in one place so mutations invalidate exactly what they change.
export const queryKeys = {
  profile: ["profile"] as const,
  keys: ["keys"] as const,
  jobs: (query: string) => ["jobs", "list", query] as const,
};
