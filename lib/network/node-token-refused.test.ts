// A node whose token the coordinator refuses (revoked or rotated from the dashboard) stops for good: it
// abandons its jobs (the coordinator already gave them back) and says so, instead of retrying forever.
import { describe, expect, it } from "vitest";
import type { ClaimedJob } from "@/lib/contract/node-protocol";
import { NodeAgent } from "./node-agent";
import { NodeTokenRefusedError, type CoordinatorTransport } from "./transport";

function refusingTransport(refuseAfterClaims: number) {
  let claims = 0;
  const transport: CoordinatorTransport = {
    register: async () => ({ nodeId: "n1", leaseMs: 30_000, heartbeatIntervalMs: 60_000 }),
    heartbeat: async () => ({ cancelJobIds: [] }),
    claim: async (): Promise<ClaimedJob[]> => {
      claims++;
      if (claims > refuseAfterClaims) throw new NodeTokenRefusedError("Unknown or revoked node token");
      await new Promise((resolve) => setTimeout(resolve, 5));
      return [];
    },
    start: async () => undefined,
    progress: async () => undefined,
    complete: async () => undefined,
    fail: async () => undefined,
    release: async () => undefined,
    drain: async () => undefined,
    stop: async () => undefined,
  };
  return { transport, claims: () => claims };
}

describe("a node whose token is refused", () => {
  it("stops claiming at the first refusal and reports it once", async () => {
    const { transport, claims } = refusingTransport(2);
    const refusals: Error[] = [];
    const agent = new NodeAgent(transport, {
      name: "box",
      concurrency: 1,
      providers: {},
      onTokenRefused: (error) => refusals.push(error),
    });
    await agent.start();
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toBeInstanceOf(NodeTokenRefusedError);
    expect(claims()).toBe(3);
  });
});
