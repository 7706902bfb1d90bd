// "Runs on: your own nodes" with none of them live (CONTRACT §12): the playground says so before Run, and the
// job that none of them took (a routing failure of placement "own") says so and leads to Nodes.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { ExecutionJob, Node, TelemetryEvent } from "@/components/data/types";
import { JobFailure } from "@/components/jobs/job-failure";
import { ownNodesProblem } from "@/components/playground/own-nodes-notice";

const at = "2026-11-27T12:00:00.000Z";

function node(state: Node["state"], serviceIds = ["token-count"]): Node {
  return {
    nodeId: `n-${state}`,
    name: "my-laptop",
    region: "home",
    serviceIds,
    concurrency: 1,
    state,
    lastHeartbeatAt: at,
    runningJobs: 0,
    createdAt: at,
    revokedAt: null,
  };
}

function unroutedJob(placement: ExecutionJob["placement"]): ExecutionJob {
  return {
    jobId: "j1",
    workflowRunId: "w1",
    serviceId: "token-count",
    status: "failed",
    progress: 0,
    input: {},
    creditCost: 0,
    placement,
    attempt: 1,
    maxAttempts: 3,
    assignedNode: null,
    result: null,
    error: { category: "routing", code: "NO_ELIGIBLE_NODE", message: "No eligible execution node took the job." },
    createdAt: at,
    updatedAt: at,
    startedAt: null,
    completedAt: at,
  };
}

const routingFailed: TelemetryEvent = {
  eventId: "e1",
  jobId: "j1",
  sequence: 3,
  type: "ROUTING_FAILED",
  timestamp: at,
  attempt: 1,
};

const failureCard = (job: ExecutionJob) =>
  renderToStaticMarkup(createElement(JobFailure, { job, events: [routingFailed], credits: [], nodeNames: {} }));

describe("before Run: whether one of the developer's nodes can take the job", () => {
  it("none live (pending, lost, draining and revoked ones do not count) is said", () => {
    expect(ownNodesProblem([], "token-count")).toBe("None of your nodes is live");
    const notLive = (["pending", "lost", "draining", "revoked"] as const).map((s) => node(s));
    expect(ownNodesProblem(notLive, "token-count")).toBe("None of your nodes is live");
  });

  it("live nodes that do not run the service are said too; a live one that runs it is enough", () => {
    expect(ownNodesProblem([node("live", ["image-ocr"])], "token-count")).toBe(
      "None of your live nodes runs this service",
    );
    expect(ownNodesProblem([node("lost"), node("live")], "token-count")).toBeNull();
  });
});

describe("after: a job placed on own nodes that none of them took", () => {
  it("says none of your nodes was live and links to Nodes", () => {
    const html = failureCard(unroutedJob("own"));
    expect(html).toContain("None of your nodes was live");
    expect(html).toMatch(/<a [^>]*href="\/nodes"[^>]*>Nodes<\/a>/);
  });

  it("a job that could run anywhere keeps the network's wording, with no Nodes link", () => {
    const html = failureCard(unroutedJob("any"));
    expect(html).toContain("No node could take it in time");
    expect(html).not.toContain('href="/nodes"');
  });
});
