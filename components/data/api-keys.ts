// API keys in the dashboard: the list, and the writes that change it (create, limit, rotate, revoke). Each
// write puts what the server answered into the list at once and refreshes the rest behind it.
import { useMutation, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { apiFetch } from "./fetch-api";
import type { ApiKey, ApiKeyWithSecret, CreateKeyRequest, UpdateKeyRequest } from "./types";

export const apiKeyKeys = {
  all: ["api-keys"] as const,
  list: ["api-keys", "list"] as const,
};

const keysPath = "/api/developers/keys";
const keyPath = (keyId: string) => `${keysPath}/${encodeURIComponent(keyId)}`;

export const useApiKeys = ({ enabled = true }: { enabled?: boolean } = {}) =>
  useQuery({
    queryKey: apiKeyKeys.list,
    queryFn: ({ signal }) => apiFetch<ApiKey[]>(keysPath, { signal }),
    enabled,
  });

export const isKeyActive = (key: ApiKey, now = Date.now()) =>
  !key.revokedAt && (!key.expiresAt || new Date(key.expiresAt).getTime() > now);

/** The changed key into the list at once (its row shows the change), then the list read again. */
function showChangedKey(queryClient: QueryClient, changed: ApiKey) {
  queryClient.setQueryData<ApiKey[]>(apiKeyKeys.list, (keys) =>
    keys?.map((k) => (k.keyId === changed.keyId ? changed : k)),
  );
  void queryClient.invalidateQueries({ queryKey: apiKeyKeys.all });
}

/** Creates a key; its secret is in the answer (and nowhere else, ever). */
export function useCreateApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateKeyRequest) => apiFetch<ApiKeyWithSecret>(keysPath, { method: "POST", body }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: apiKeyKeys.all }),
  });
}

/** Sets, changes or removes (null) a key's credit limit. */
export function useUpdateApiKey(keyId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: UpdateKeyRequest) => apiFetch<ApiKey>(keyPath(keyId), { method: "PATCH", body }),
    onSuccess: (saved) => showChangedKey(queryClient, saved),
  });
}

/**
 * Issues a new secret for the key; the old one keeps working for `gracePeriodSeconds` (none: it stops at
 * once). The answer carries the secret and about when the old one stops.
 */
export function useRotateApiKey(keyId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (gracePeriodSeconds: number | undefined) => {
      const key = await apiFetch<ApiKeyWithSecret>(`${keyPath(keyId)}/rotate`, {
        method: "POST",
        body: gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds },
      });
      return { key, oldSecretValidUntil: gracePeriodSeconds ? new Date(Date.now() + gracePeriodSeconds * 1000) : null };
    },
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: apiKeyKeys.all }),
  });
}

/** Revokes a key: requests with it fail from then on. */
export function useRevokeApiKey(keyId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => apiFetch<ApiKey>(keyPath(keyId), { method: "DELETE" }),
    onSuccess: (revoked) => showChangedKey(queryClient, revoked),
  });
}
