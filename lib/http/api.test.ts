import { describe, expect, it } from "vitest";
import { handleApi } from "./api";

describe("the API wrapper", () => {
  it("answers a path whose percent-encoding is not UTF-8 with 404 in the envelope, whatever the params do", async () => {
    const handler = handleApi<{ jobId: string }>(async () => new Response("reached"));
    const params = Promise.reject(new URIError("URI malformed"));
    params.catch(() => undefined);
    const res = await handler(new Request("http://127.0.0.1/api/developers/jobs/%ED%A0%80/logs"), { params });
    expect(res.status).toBe(404);
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect((await res.json()).error.code).toBe("NOT_FOUND");
  });
});
