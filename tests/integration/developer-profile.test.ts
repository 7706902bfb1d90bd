import { getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUpDeveloper } from "../support/developer";
import { startTestServer, type TestServer } from "../support/test-server";
import { expectError, isoTime } from "../support/expect-error";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ embeddedNodes: 0 });
});
afterAll(() => server.close());

describe("the developer profile", () => {
  it("does not exist before it is created: GET /api/developers/me is 404 PROFILE_NOT_FOUND", async () => {
    const dev = await signUpDeveloper(server.baseUrl, { profile: false });
    await expectError(await dev.session("/api/developers/me"), 404, "PROFILE_NOT_FOUND");
  });

  it("is created with 201 and the checksummed wallet address, and read back unchanged", async () => {
    const dev = await signUpDeveloper(server.baseUrl, { profile: false });
    const res = await dev.session("/api/developers", {
      method: "POST",
      body: JSON.stringify({ name: "Grace Hopper", email: "grace@example.com", organization: "Navy" }),
    });
    expect(res.status).toBe(201);
    const profile = await res.json();
    expect(profile).toEqual({
      developerId: expect.any(String),
      walletAddress: getAddress(dev.address),
      name: "Grace Hopper",
      email: "grace@example.com",
      organization: "Navy",
      lowBalanceThreshold: null,
      createdAt: isoTime,
    });
    expect(profile.walletAddress).not.toBe(dev.address.toLowerCase());

    const me = await dev.session("/api/developers/me");
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual(profile);
  });

  it("takes every address the OpenAPI document's email rule allows (HTML's input type=email), and refuses the others", async () => {
    const dev = await signUpDeveloper(server.baseUrl, { name: "Mail" });
    for (const email of ["ops@localhost", "x!#$%&'*/=?^_`{|}~-@example.com", "a@b.c", "a..b@example.org"]) {
      const res = await dev.session("/api/developers/me", { method: "PATCH", body: JSON.stringify({ email }) });
      expect(res.status, email).toBe(200);
      expect((await res.json()).email).toBe(email);
    }
    for (const email of ["a@", "@example.com", "a b@example.com", "a@-example.com", '"q"@example.com']) {
      const res = await dev.session("/api/developers/me", { method: "PATCH", body: JSON.stringify({ email }) });
      await expectError(res, 400, "INVALID_REQUEST");
    }
  });

  it("keeps optional members null when they are not given", async () => {
    const dev = await signUpDeveloper(server.baseUrl, { profile: false });
    const res = await dev.session("/api/developers", { method: "POST", body: JSON.stringify({ name: "Solo" }) });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ name: "Solo", email: null, organization: null });
  });

  it("can be created only once: a second POST is 409 PROFILE_EXISTS and changes nothing", async () => {
    const dev = await signUpDeveloper(server.baseUrl, { name: "First Name" });
    const again = await dev.session("/api/developers", {
      method: "POST",
      body: JSON.stringify({ name: "Second Name" }),
    });
    await expectError(again, 409, "PROFILE_EXISTS");
    expect((await (await dev.session("/api/developers/me")).json()).name).toBe("First Name");
  });

  it("is updated partially by PATCH /api/developers/me, keeping the members not sent", async () => {
    const dev = await signUpDeveloper(server.baseUrl, { profile: false });
    const created = await (
      await dev.session("/api/developers", {
        method: "POST",
        body: JSON.stringify({ name: "Before", email: "before@example.com", organization: "Old Org" }),
      })
    ).json();

    const renamed = await dev.session("/api/developers/me", {
      method: "PATCH",
      body: JSON.stringify({ name: "After" }),
    });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toEqual({ ...created, name: "After" });

    const moved = await dev.session("/api/developers/me", {
      method: "PATCH",
      body: JSON.stringify({ email: "after@example.com", organization: "New Org" }),
    });
    expect(await moved.json()).toEqual({
      ...created,
      name: "After",
      email: "after@example.com",
      organization: "New Org",
    });
    expect(await (await dev.session("/api/developers/me")).json()).toEqual({
      ...created,
      name: "After",
      email: "after@example.com",
      organization: "New Org",
    });
  });

  it("clears email and organization with null, but never the name", async () => {
    const dev = await signUpDeveloper(server.baseUrl, { profile: false });
    await dev.session("/api/developers", {
      method: "POST",
      body: JSON.stringify({ name: "Keeps", email: "k@example.com", organization: "Org" }),
    });
    const cleared = await dev.session("/api/developers/me", {
      method: "PATCH",
      body: JSON.stringify({ email: null, organization: null }),
    });
    expect(cleared.status).toBe(200);
    expect(await cleared.json()).toMatchObject({ name: "Keeps", email: null, organization: null });
    await expectError(
      await dev.session("/api/developers/me", { method: "PATCH", body: JSON.stringify({ name: null }) }),
      400,
      "INVALID_REQUEST",
    );
  });

  it("treats an empty PATCH as a no-op: 200 with the profile unchanged", async () => {
    const dev = await signUpDeveloper(server.baseUrl, { name: "Steady" });
    const before = await (await dev.session("/api/developers/me")).json();
    const res = await dev.session("/api/developers/me", { method: "PATCH", body: "{}" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(before);
  });

  it("cannot be updated before it exists (404 PROFILE_NOT_FOUND)", async () => {
    const dev = await signUpDeveloper(server.baseUrl, { profile: false });
    await expectError(
      await dev.session("/api/developers/me", { method: "PATCH", body: JSON.stringify({ name: "X" }) }),
      404,
      "PROFILE_NOT_FOUND",
    );
  });

  it("accepts a name of exactly 80 characters", async () => {
    const dev = await signUpDeveloper(server.baseUrl, { profile: false });
    const res = await dev.session("/api/developers", {
      method: "POST",
      body: JSON.stringify({ name: "n".repeat(80) }),
    });
    expect(res.status).toBe(201);
  });
});

describe("profile validation", () => {
  const invalidBodies: [string, unknown][] = [
    ["an empty name", { name: "" }],
    ["a blank name", { name: "   " }],
    ["a name over 80 characters", { name: "n".repeat(81) }],
    ["a missing name", { email: "a@example.com" }],
    ["a bad email", { name: "Ada", email: "not-an-email" }],
    ["an organization over 80 characters", { name: "Ada", organization: "o".repeat(81) }],
    ["an extra member", { name: "Ada", role: "admin" }],
    ["a name that is not a string", { name: 42 }],
    ["a name containing a NUL character", { name: "Ada\u0000Lovelace" }],
    ["an organization containing a NUL character", { name: "Ada", organization: "\u0000" }],
  ];

  it.each(invalidBodies)(
    "POST /api/developers refuses %s with 400 INVALID_REQUEST and creates nothing",
    async (_, body) => {
      const dev = await signUpDeveloper(server.baseUrl, { profile: false });
      await expectError(
        await dev.session("/api/developers", { method: "POST", body: JSON.stringify(body) }),
        400,
        "INVALID_REQUEST",
      );
      await expectError(await dev.session("/api/developers/me"), 404, "PROFILE_NOT_FOUND");
    },
  );

  it("PATCH /api/developers/me refuses invalid members with 400 and leaves the profile unchanged", async () => {
    const dev = await signUpDeveloper(server.baseUrl, { name: "Unchanged" });
    const before = await (await dev.session("/api/developers/me")).json();
    for (const body of [{ name: "" }, { name: "n".repeat(81) }, { email: "nope" }, { extra: true }]) {
      await expectError(
        await dev.session("/api/developers/me", { method: "PATCH", body: JSON.stringify(body) }),
        400,
        "INVALID_REQUEST",
      );
    }
    expect(await (await dev.session("/api/developers/me")).json()).toEqual(before);
  });

  it("PATCH /api/developers/me refuses a name containing a NUL character with 400", async () => {
    const dev = await signUpDeveloper(server.baseUrl, { name: "Unchanged" });
    await expectError(
      await dev.session("/api/developers/me", { method: "PATCH", body: JSON.stringify({ name: "a\u0000b" }) }),
      400,
      "INVALID_REQUEST",
    );
    expect((await (await dev.session("/api/developers/me")).json()).name).toBe("Unchanged");
  });

  it("refuses malformed JSON with 400 and a body that is not JSON with 415", async () => {
    const dev = await signUpDeveloper(server.baseUrl, { profile: false });
    await expectError(
      await dev.session("/api/developers", { method: "POST", body: "{not json" }),
      400,
      "INVALID_REQUEST",
    );
    const text = await dev.session("/api/developers", {
      method: "POST",
      body: "name=Ada",
      headers: { "content-type": "text/plain" },
    });
    await expectError(text, 415, "UNSUPPORTED_MEDIA_TYPE");
  });
});

describe("profile routes take a wallet session only", () => {
  it("answers 401 UNAUTHENTICATED without any credential", async () => {
    await expectError(await fetch(`${server.baseUrl}/api/developers/me`), 401, "UNAUTHENTICATED");
  });

  it("answers 401 UNAUTHENTICATED to an API key sent without the session cookie", async () => {
    const dev = await signUpDeveloper(server.baseUrl);
    const key = await dev.createApiKey();
    await expectError(await dev.withKey(key, "/api/developers/me"), 401, "UNAUTHENTICATED");
    // With the app's Origin, so that only the credential is at fault.
    const create = await dev.withKey(key, "/api/developers", {
      method: "POST",
      body: JSON.stringify({ name: "Via Key" }),
      headers: { origin: server.baseUrl },
    });
    await expectError(create, 401, "UNAUTHENTICATED");
    const update = await dev.withKey(key, "/api/developers/me", {
      method: "PATCH",
      body: JSON.stringify({ name: "Via Key" }),
      headers: { origin: server.baseUrl },
    });
    await expectError(update, 401, "UNAUTHENTICATED");
    expect((await (await dev.session("/api/developers/me")).json()).name).toBe("Ada Developer");
  });

  it("refuses cookie-authenticated mutations without the app's Origin (403 FORBIDDEN_ORIGIN)", async () => {
    const dev = await signUpDeveloper(server.baseUrl, { profile: false });
    const post = (headers: Record<string, string>) =>
      fetch(`${server.baseUrl}/api/developers`, {
        method: "POST",
        headers: { cookie: dev.cookie, "content-type": "application/json", ...headers },
        body: JSON.stringify({ name: "Forged" }),
      });
    await expectError(await post({}), 403, "FORBIDDEN_ORIGIN");
    await expectError(await post({ origin: "https://evil.example" }), 403, "FORBIDDEN_ORIGIN");
    await expectError(await dev.session("/api/developers/me"), 404, "PROFILE_NOT_FOUND");

    await dev.session("/api/developers", { method: "POST", body: JSON.stringify({ name: "Genuine" }) });
    const patch = (headers: Record<string, string>) =>
      fetch(`${server.baseUrl}/api/developers/me`, {
        method: "PATCH",
        headers: { cookie: dev.cookie, "content-type": "application/json", ...headers },
        body: JSON.stringify({ name: "Forged" }),
      });
    await expectError(await patch({}), 403, "FORBIDDEN_ORIGIN");
    await expectError(await patch({ origin: "https://evil.example" }), 403, "FORBIDDEN_ORIGIN");
    expect((await (await dev.session("/api/developers/me")).json()).name).toBe("Genuine");
  });

  it("lets a read go without an Origin header", async () => {
    const dev = await signUpDeveloper(server.baseUrl);
    const res = await fetch(`${server.baseUrl}/api/developers/me`, { headers: { cookie: dev.cookie } });
    expect(res.status).toBe(200);
  });
});
