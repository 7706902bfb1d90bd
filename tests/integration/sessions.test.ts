import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signIn, signUpDeveloper } from "../support/developer";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ embeddedNodes: 0 });
});
afterAll(() => server.close());

const sessionWith = (cookie: string) => fetch(`${server.baseUrl}/api/auth/session`, { headers: { cookie } });
const post = (path: string, cookie: string, origin = server.baseUrl) =>
  fetch(`${server.baseUrl}${path}`, { method: "POST", headers: { cookie, origin } });

describe("wallet sessions are held on the server", () => {
  it("logout revokes the session: a copy of the old cookie no longer works", async () => {
    const { cookie } = await signIn(server.baseUrl);
    expect((await sessionWith(cookie)).status).toBe(200);
    expect((await post("/api/auth/logout", cookie)).status).toBe(204);
    const res = await sessionWith(cookie);
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe("UNAUTHENTICATED");
  });

  it("sign out everywhere revokes every session of the account, and only that account's", async () => {
    const developer = await signUpDeveloper(server.baseUrl);
    const { cookie: secondBrowser } = await signIn(server.baseUrl, developer.account);
    const stranger = await signIn(server.baseUrl);
    expect((await post("/api/auth/logout-everywhere", developer.cookie)).status).toBe(204);
    expect((await sessionWith(developer.cookie)).status).toBe(401);
    expect((await sessionWith(secondBrowser)).status).toBe(401);
    expect((await developer.session("/api/developers/keys")).status).toBe(401);
    expect((await sessionWith(stranger.cookie)).status).toBe(200);
  });

  it("sign out everywhere needs a session and the app's Origin", async () => {
    const { cookie } = await signIn(server.baseUrl);
    const foreign = await post("/api/auth/logout-everywhere", cookie, "https://evil.example");
    expect(foreign.status).toBe(403);
    expect((await foreign.json()).error.code).toBe("FORBIDDEN_ORIGIN");
    expect((await sessionWith(cookie)).status).toBe(200);
    const anonymous = await post("/api/auth/logout-everywhere", "");
    expect(anonymous.status).toBe(401);
  });
});
