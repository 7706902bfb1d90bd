import { describe, expect, it } from "vitest";
import { meetsEngines } from "./supported-node";

describe("the Node a bench runs on", () => {
  it("must meet package.json's engines: Node 20 does not meet >=22, Node 22 and 24 do", () => {
    expect(meetsEngines("v20.20.2", ">=22")).toBe(false);
    expect(meetsEngines("v22.0.0", ">=22")).toBe(true);
    expect(meetsEngines("v24.21.0", ">=22")).toBe(true);
  });

  it("takes any Node when engines says nothing", () => {
    expect(meetsEngines("v18.0.0", undefined)).toBe(true);
  });
});
