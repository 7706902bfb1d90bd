// A node's credential and what it may offer: tokens are shown once and kept only as a hash (operator nodes and
// developers' nodes alike), and a developer's node runs at most what its owner declared.
import { createHash, randomBytes } from "node:crypto";

export const newNodeToken = () => `node_${randomBytes(32).toString("base64url")}`;
export const hashNodeToken = (token: string) => createHash("sha256").update(token).digest("hex");

export interface NodeOffer {
  name: string;
  region: string;
  serviceIds: string[];
  concurrency: number;
}

interface Declared {
  ownerAccountId: string | null;
  name: string;
  region: string;
  declaredServiceIds: string[] | null;
  declaredConcurrency: number | null;
}

/**
 * What a registering node is recorded as offering. The network's nodes offer what they say. A developer's
 * node keeps the name and region its owner gave it, and its services and concurrency are narrowed to the
 * declared ones: the node process cannot widen what its owner added it for.
 */
export function offerOf(node: Declared, offered: NodeOffer): NodeOffer {
  if (node.ownerAccountId === null) return offered;
  const declared = new Set(node.declaredServiceIds ?? []);
  return {
    name: node.name,
    region: node.region,
    serviceIds: offered.serviceIds.filter((id) => declared.has(id)),
    concurrency: Math.min(offered.concurrency, node.declaredConcurrency ?? offered.concurrency),
  };
}
