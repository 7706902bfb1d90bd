// The developer profile: its query, seeded by the pages that need it from the server (WithProfile), so a
// developer without one is never asked for it and the browser never logs the expected 404; and its writes.
import {
  dehydrate,
  QueryClient,
  useMutation,
  useQuery,
  useQueryClient,
  type DehydratedState,
} from "@tanstack/react-query";
import { apiKeyKeys } from "./api-keys";
import { apiFetch, isApiError } from "./fetch-api";
import type { Profile } from "./types";
import { webhookKeys } from "./webhooks";

export const profileKeys = { all: ["profile"] as const };

export interface ProfileFields {
  name?: string;
  email?: string | null;
  organization?: string | null;
  /** The low-balance alert's threshold in credits; null turns it off. */
  lowBalanceThreshold?: number | null;
}

/**
 * The profile, or null while the developer has not created one. Never refetched on its own (a refetch of a
 * missing profile is a 404 in the console): this dashboard's writes put it into the cache, and each page
 * that needs it brings the server's copy.
 */
export const useProfile = () =>
  useQuery({
    queryKey: profileKeys.all,
    queryFn: async ({ signal }) => {
      try {
        return await apiFetch<Profile>("/api/developers/me", { signal });
      } catch (error) {
        if (isApiError(error, "PROFILE_NOT_FOUND")) return null;
        throw error;
      }
    },
    staleTime: Infinity,
  });

/** A server-read profile as the cache state a HydrationBoundary hands to the browser. */
export function profileState(profile: Profile | null): DehydratedState {
  const queryClient = new QueryClient();
  queryClient.setQueryData(profileKeys.all, profile);
  return dehydrate(queryClient);
}

const createProfile = (fields: ProfileFields) => apiFetch<Profile>("/api/developers", { method: "POST", body: fields });
const updateProfile = (fields: ProfileFields) =>
  apiFetch<Profile>("/api/developers/me", { method: "PATCH", body: fields });

/**
 * Creates the profile unless it exists (e.g. created meanwhile in another tab): the first Run's step.
 * The new profile, or null when it existed already.
 */
export async function ensureProfile(name: string): Promise<Profile | null> {
  try {
    return await createProfile({ name });
  } catch (error) {
    if (isApiError(error, "PROFILE_EXISTS")) return null;
    throw error;
  }
}

/** A saved profile into the cache; what needs a profile (keys, webhooks) loads fresh. */
export function rememberProfile(queryClient: QueryClient, profile: Profile | null) {
  if (profile) queryClient.setQueryData(profileKeys.all, profile);
  else void queryClient.invalidateQueries({ queryKey: profileKeys.all });
  void queryClient.invalidateQueries({ queryKey: apiKeyKeys.all });
  void queryClient.invalidateQueries({ queryKey: webhookKeys.all });
}

/**
 * Saves the profile: creates it when `existing` is null, else changes what `fields` name. Created meanwhile
 * elsewhere (another tab, the API): the failure says so, and the cache reads the real one.
 */
export function useSaveProfile(existing: Profile | null) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (fields: ProfileFields) => (existing ? updateProfile(fields) : createProfile(fields)),
    onSuccess: (saved) => rememberProfile(queryClient, saved),
    onError: (error) => {
      if (isApiError(error, "PROFILE_EXISTS")) rememberProfile(queryClient, null);
    },
  });
}
