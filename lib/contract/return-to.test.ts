import { describe, expect, it } from "vitest";
import { safeReturnTo, signInHref } from "./return-to";

describe("where signing in again returns to", () => {
  it("a page of this site, with its query and fragment, is kept", () => {
    expect(safeReturnTo("/jobs")).toBe("/jobs");
    expect(safeReturnTo("/jobs?status=failed&page=2#top")).toBe("/jobs?status=failed&page=2#top");
    expect(safeReturnTo("/services/tok%20count")).toBe("/services/tok%20count");
  });

  it("anything that could leave the site is refused (never an open redirect)", () => {
    for (const hostile of [
      "https://evil.example/jobs",
      "//evil.example/jobs",
      "/\\evil.example",
      "\\\\evil.example",
      "/\t/evil.example",
      " /jobs",
      "javascript:alert(1)",
      "jobs",
      "http:/evil.example",
      "/%0a/evil.example",
    ])
      expect(safeReturnTo(hostile), hostile).toBeNull();
  });

  it("nothing, a non-string, an over-long path, the sign-in page itself and the API are refused", () => {
    expect(safeReturnTo(undefined)).toBeNull();
    expect(safeReturnTo(["/jobs", "/keys"])).toBeNull();
    expect(safeReturnTo(`/${"a".repeat(3000)}`)).toBeNull();
    expect(safeReturnTo("/sign-in?next=/jobs")).toBeNull();
    expect(safeReturnTo("/api/developers/jobs")).toBeNull();
  });

  it("the sign-in link carries the page, encoded, and only a safe one", () => {
    expect(signInHref("/jobs?status=failed")).toBe("/sign-in?next=%2Fjobs%3Fstatus%3Dfailed");
    expect(signInHref("//evil.example")).toBe("/sign-in");
    expect(signInHref(undefined)).toBe("/sign-in");
  });
});
