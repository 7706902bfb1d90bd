import { describe, expect, it } from "vitest";
import { ownNodeCreditCost } from "./own-node-price";

describe("the price of a job on the developer's own node", () => {
  it("is the service's price times the share, rounded up to whole credits", () => {
    expect(ownNodeCreditCost(5, 0)).toBe(0);
    expect(ownNodeCreditCost(5, 0.5)).toBe(3);
    expect(ownNodeCreditCost(1, 0.01)).toBe(1);
    expect(ownNodeCreditCost(5, 1)).toBe(5);
  });

  it("is not pushed up a credit by floating-point error", () => {
    expect(ownNodeCreditCost(10, 0.7)).toBe(7);
    expect(ownNodeCreditCost(100, 0.07)).toBe(7);
  });
});
