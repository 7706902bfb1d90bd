// The metrics route without METRICS_TOKEN is not there (404 in the envelope), and the bearer check.
import { describe, expect, it } from "vitest";
import { bearerMatches } from "@/lib/http/metrics-endpoint";
import { GET } from "./route";

describe("the metrics endpoint", () => {
  it("answers 404 NOT_FOUND in the envelope while METRICS_TOKEN is unset", async () => {
    const res = await GET(new Request("http://127.0.0.1/api/metrics", { headers: { authorization: "Bearer x" } }));
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("NOT_FOUND");
  });

  it("takes exactly Bearer <token>", () => {
    const token = "a-metrics-token-0123456789";
    expect(bearerMatches(`Bearer ${token}`, token)).toBe(true);
    expect(bearerMatches(`bearer ${token}`, token)).toBe(true);
    for (const wrong of [null, "", token, `Bearer ${token} `, `Bearer ${token.slice(1)}`, "Bearer ", `Basic ${token}`])
      expect(bearerMatches(wrong, token)).toBe(false);
  });
});
