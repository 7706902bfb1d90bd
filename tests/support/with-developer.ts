// The setup most suites share: a test server, a signed-up developer with a profile, and an API key with
// every scope, started before the file's tests and closed after them.
import { afterAll, beforeAll } from "vitest";
import { signUpDeveloper, type Developer } from "./developer";
import { startTestServer, type TestServer, type TestServerOptions } from "./test-server";

export interface DeveloperFixture {
  server: TestServer;
  dev: Developer;
  /** An API key of `dev` with every scope. */
  key: string;
}

/**
 * Registers the hooks and returns the fixture, filled in before the first test. Pass a function for
 * options that depend on an earlier hook (e.g. a local LLM server's URL).
 */
export function withDeveloper(options: TestServerOptions | (() => TestServerOptions) = {}): DeveloperFixture {
  const fixture = {} as DeveloperFixture;
  beforeAll(async () => {
    fixture.server = await startTestServer(typeof options === "function" ? options() : options);
    fixture.dev = await signUpDeveloper(fixture.server.baseUrl);
    fixture.key = await fixture.dev.createApiKey();
  });
  afterAll(() => fixture.server?.close());
  return fixture;
}
