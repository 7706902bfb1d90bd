// The dashboard's reads, one hook per resource, so every page shares the same keys and caching.
import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "./fetch-api";
import { queryKeys } from "./query-keys";
import type { ApiKey } from "./types";

export const useApiKeys = ({ enabled = true }: { enabled?: boolean } = {}) =>
  useQuery({
    queryKey: queryKeys.keys,
    queryFn: ({ signal }) => apiFetch<ApiKey[]>("/api/developers/keys", { signal }),
    enabled,
  });

export const isKeyActive = (key: ApiKey, now = Date.now()) =>
  !key.revokedAt && (!key.expiresAt || new Date(key.expiresAt).getTime() > now);
