// Nodes in the dashboard (CONTRACT §12): the Nodes page's live overview (the developer's own nodes with their
// last day, then the network's), and adding, rotating and revoking a node. One module owns their query keys.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiFetch } from "./fetch-api";
import type { CreateNodeRequest, Node, NodesOverview, NodeWithToken } from "./types";

export const nodeKeys = {
  all: ["nodes"] as const,
  overview: ["nodes", "overview"] as const,
  own: ["nodes", "own"] as const,
};

/** Heartbeats come every few seconds: the page follows them about as often. */
const liveRefreshMs = 3_000;

export function useNodesOverview(initial?: NodesOverview) {
  return useQuery({
    queryKey: nodeKeys.overview,
    queryFn: ({ signal }) => apiFetch<NodesOverview>("/api/dashboard/nodes", { signal }),
    initialData: initial,
    refetchInterval: liveRefreshMs,
  });
}

/** The developer's own nodes with their state, followed while a form depends on whether one is live. */
export function useOwnNodes() {
  return useQuery({
    queryKey: nodeKeys.own,
    queryFn: ({ signal }) => apiFetch<{ data: Node[] }>("/api/developers/nodes", { signal }),
    refetchInterval: liveRefreshMs,
  });
}

const nodePath = (nodeId: string) => `/api/developers/nodes/${encodeURIComponent(nodeId)}`;

/** The answer carries the token, shown once: the caller keeps it only in the dialog's state. */
export function useAddNode() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (fields: CreateNodeRequest) =>
      apiFetch<NodeWithToken>("/api/developers/nodes", { method: "POST", body: fields }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: nodeKeys.all }),
  });
}

export function useRotateNodeToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (nodeId: string) => apiFetch<NodeWithToken>(`${nodePath(nodeId)}/rotate-token`, { method: "POST" }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: nodeKeys.all }),
  });
}

export function useRevokeNode() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (nodeId: string) => apiFetch<Node>(nodePath(nodeId), { method: "DELETE" }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: nodeKeys.all }),
  });
}
