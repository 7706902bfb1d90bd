// The dashboard's reads, one hook per resource, so every page shares the same keys and caching.
import { useQuery } from "@tanstack/react-query";
import { apiFetch, isApiError } from "./fetch-api";
import { queryKeys } from "./query-keys";
import type { ApiKey, Profile } from "./types";

/** The profile, or null while the developer has not created one (404 PROFILE_NOT_FOUND). */
export function useProfile() {
  return useQuery({
    queryKey: queryKeys.profile,
    queryFn: async ({ signal }) => {
      try {
        return await apiFetch<Profile>("/api/developers/me", { signal });
      } catch (error) {
        if (isApiError(error, "PROFILE_NOT_FOUND")) return null;
        throw error;
      }
    },
  });
}

export const useApiKeys = ({ enabled = true }: { enabled?: boolean } = {}) =>
  useQuery({
    queryKey: queryKeys.keys,
    queryFn: ({ signal }) => apiFetch<ApiKey[]>("/api/developers/keys", { signal }),
    enabled,
  });

export const isKeyActive = (key: ApiKey, now = Date.now()) =>
  !key.revokedAt && (!key.expiresAt || new Date(key.expiresAt).getTime() > now);

