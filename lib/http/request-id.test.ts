// CONTRACT §1: a well-formed X-Request-Id is echoed; otherwise each request gets a new `req_` + random id.
import { describe, expect, it } from "vitest";
import { requestIdOf } from "./request-id";

const request = (id?: string) => new Request("http://127.0.0.1/", { headers: id ? { "x-request-id": id } : {} });

describe("a request's id", () => {
  it("is the client's own when it is well formed", () => {
    expect(requestIdOf(request("trace-42.a_b"))).toBe("trace-42.a_b");
  });

  it("is a new one when the client's is not", () => {
    expect(requestIdOf(request("has spaces"))).toMatch(/^req_[A-Za-z0-9_-]{16}$/);
  });

  it("is different for every request, across many refills of its random pool", () => {
    const ids = Array.from({ length: 2_000 }, () => requestIdOf(request()));
    expect(ids.every((id) => /^req_[A-Za-z0-9_-]{16}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
