import { describe, expect, it } from "vitest";
import { hashNodeToken, newNodeToken, offerOf } from "./node-identity";

const offered = { name: "renamed", region: "elsewhere", serviceIds: ["token-count", "image-ocr"], concurrency: 32 };

describe("what a registering node is recorded as offering", () => {
  it("is what a network node says", () => {
    const node = { ownerAccountId: null, name: "n", region: "r", declaredServiceIds: null, declaredConcurrency: null };
    expect(offerOf(node, offered)).toEqual(offered);
  });

  it("is, for a developer's node, narrowed to what its owner declared, under the owner's name and region", () => {
    const node = {
      ownerAccountId: "a",
      name: "gpu-box",
      region: "eu-west",
      declaredServiceIds: ["token-count", "text-sentiment"],
      declaredConcurrency: 4,
    };
    expect(offerOf(node, offered)).toEqual({
      name: "gpu-box",
      region: "eu-west",
      serviceIds: ["token-count"],
      concurrency: 4,
    });
  });
});

describe("a node token", () => {
  it("is node_ and 256 random bits, kept only as its SHA-256", () => {
    const token = newNodeToken();
    expect(token).toMatch(/^node_[A-Za-z0-9_-]{43}$/);
    expect(newNodeToken()).not.toBe(token);
    expect(hashNodeToken(token)).toMatch(/^[0-9a-f]{64}$/);
  });
});
