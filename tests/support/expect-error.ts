// The contract's error envelope (CONTRACT §1), checked the same way by every suite.
import { expect } from "vitest";

export interface ErrorBody {
  code: string;
  message: string;
  requestId: string;
  details?: Record<string, unknown>;
}

/** An ISO-8601 UTC time as the API writes it (milliseconds or microseconds optional). */
export const isoTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
/** Matcher for an ISO-8601 UTC time inside toEqual/toMatchObject. */
export const isoTime = expect.stringMatching(isoTimePattern);

/**
 * Asserts `res` is `status` with the envelope `{ error: { code, message, requestId } }`: the code, a
 * message, the request id of the X-Request-Id header, and nothing internal (no stack, no source path).
 */
export async function expectError(res: Response, status: number, code: string): Promise<ErrorBody> {
  expect(res.status).toBe(status);
  const text = await res.text();
  const body = JSON.parse(text) as { error: ErrorBody };
  expect(body.error).toMatchObject({ code, message: expect.any(String), requestId: res.headers.get("x-request-id") });
  expect(body.error.requestId).toEqual(expect.any(String));
  expect(text).not.toMatch(/\bat \S+ \(|node_modules|\.ts:\d+|stack/i);
  return body.error;
}
