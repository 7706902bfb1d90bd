import { request as httpRequest } from "node:http";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cookieFrom, requestNonce, signIn, siweMessage } from "../support/developer";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ embeddedNodes: 0 });
});
afterAll(() => server.close());

async function verify(body: unknown, headers: Record<string, string>) {
  return fetch(`${server.baseUrl}/api/auth/verify`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.baseUrl, ...headers },
    body: JSON.stringify(body),
  });
}

describe("Sign-In with Ethereum", () => {
  it("signs in with a real signature, returns the checksummed address, and opens a session", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const { cookie } = await signIn(server.baseUrl, account);
    const res = await fetch(`${server.baseUrl}/api/auth/session`, { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ address: account.address, chainId: 1 });
  });

  it("grants the starter credits on the first sign-in only", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const first = await signIn(server.baseUrl, account);
    const second = await signIn(server.baseUrl, account);
    const res = await fetch(`${server.baseUrl}/api/credits/history`, { headers: { cookie: second.cookie } });
    const history = (await res.json()) as { data: { type: string; amount: number; balanceAfter: number }[] };
    expect(history.data).toEqual([expect.objectContaining({ type: "grant", amount: 100, balanceAfter: 100 })]);
    expect(first.cookie).not.toBe(second.cookie);
  });

  it("rejects a nonce that was already used, even replayed with the old cookie", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const { nonce, cookie } = await requestNonce(server.baseUrl);
    const message = siweMessage({ address: account.address, host: new URL(server.baseUrl).host, nonce });
    const signature = await account.signMessage({ message });
    expect((await verify({ message, signature }, { cookie })).status).toBe(200);
    const replay = await verify({ message, signature }, { cookie });
    expect(replay.status).toBe(401);
    expect((await replay.json()).error.code).toBe("UNAUTHENTICATED");
  });

  it("signs in with the first of two nonces a page fetched: each of the visitor's last 5 nonces stays good for 10 minutes, once", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const host = new URL(server.baseUrl).host;
    // The page fetched a nonce twice (a re-render, a double click) and put the first one in the message.
    const first = await requestNonce(server.baseUrl);
    const second = await requestNonce(server.baseUrl, first.cookie);
    const message = siweMessage({ address: account.address, host, nonce: first.nonce });
    const signature = await account.signMessage({ message });
    const res = await verify({ message, signature }, { cookie: second.cookie });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ address: account.address, chainId: 1 });
    // Single use still: the same message again with the cookie that held it.
    expect((await verify({ message, signature }, { cookie: second.cookie })).status).toBe(401);

    // The set is bounded: a sixth nonce pushes out the first, the second still signs in.
    const issued = [await requestNonce(server.baseUrl)];
    for (let i = 1; i < 6; i++) issued.push(await requestNonce(server.baseUrl, issued[i - 1].cookie));
    const latestCookie = issued[5].cookie;
    const signWith = async (nonce: string) => {
      const m = siweMessage({ address: account.address, host, nonce });
      return verify({ message: m, signature: await account.signMessage({ message: m }) }, { cookie: latestCookie });
    };
    const pushedOut = await signWith(issued[0].nonce);
    expect(pushedOut.status).toBe(401);
    expect((await pushedOut.json()).error.message).toMatch(/nonce/);
    expect((await signWith(issued[1].nonce)).status).toBe(200);
  });

  it("refuses an address that is not EIP-55 checksummed and a Version other than 1, saying which", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const host = new URL(server.baseUrl).host;
    const cases: [(nonce: string) => string, RegExp][] = [
      [
        (nonce) =>
          siweMessage({ address: account.address, host, nonce }).replace(
            account.address,
            account.address.toLowerCase(),
          ),
        /EIP-55/,
      ],
      [
        (nonce) => siweMessage({ address: account.address, host, nonce }).replace("Version: 1", "Version: 2"),
        /Version/,
      ],
    ];
    for (const [make, says] of cases) {
      const { nonce, cookie } = await requestNonce(server.baseUrl);
      const message = make(nonce);
      const res = await verify({ message, signature: await account.signMessage({ message }) }, { cookie });
      expect(res.status).toBe(401);
      const { error } = await res.json();
      expect(error.code).toBe("UNAUTHENTICATED");
      expect(error.message).toMatch(says);
    }
  });

  it("rejects a message for another domain, a wrong nonce, an expired message and a bad signature", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const host = new URL(server.baseUrl).host;
    const cases = [
      async (nonce: string) => siweMessage({ address: account.address, host: "evil.example", nonce }),
      async () => siweMessage({ address: account.address, host, nonce: "aaaaaaaaaaaaaaaaaaaa" }),
      async (nonce: string) =>
        siweMessage({ address: account.address, host, nonce, expirationTime: new Date(Date.now() - 1000) }),
    ];
    for (const make of cases) {
      const { nonce, cookie } = await requestNonce(server.baseUrl);
      const message = await make(nonce);
      const res = await verify({ message, signature: await account.signMessage({ message }) }, { cookie });
      expect(res.status).toBe(401);
    }
    const { nonce, cookie } = await requestNonce(server.baseUrl);
    const message = siweMessage({ address: account.address, host, nonce });
    const other = privateKeyToAccount(generatePrivateKey());
    const res = await verify({ message, signature: await other.signMessage({ message }) }, { cookie });
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe("UNAUTHENTICATED");
  });

  describe("binds the message to the configured app origin, not to what the request says", () => {
    const phishing = "evil.example";
    /** A relayed sign-in: the attacker's server forwards a victim's signature with headers of its choosing. */
    async function relay(message: string, signature: string, cookie: string, headers: Record<string, string>) {
      const body = JSON.stringify({ message, signature });
      const url = new URL(`${server.baseUrl}/api/auth/verify`);
      return new Promise<{ status: number; code?: string }>((resolve, reject) => {
        const req = httpRequest(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: "POST",
            headers: {
              "content-type": "application/json",
              "content-length": Buffer.byteLength(body),
              origin: server.baseUrl,
              cookie,
              ...headers,
            },
          },
          (res) => {
            let text = "";
            res.on("data", (chunk) => (text += chunk));
            res.on("end", () =>
              resolve({ status: res.statusCode ?? 0, code: text ? JSON.parse(text).error?.code : undefined }),
            );
          },
        );
        req.on("error", reject);
        req.end(body);
      });
    }

    it("refuses a message signed for a phishing domain even when X-Forwarded-Host or Host names that domain", async () => {
      const victim = privateKeyToAccount(generatePrivateKey());
      const relayedHeaders: Record<string, string>[] = [
        { "x-forwarded-host": phishing, "x-forwarded-proto": "https" },
        { host: phishing },
      ];
      for (const headers of relayedHeaders) {
        const { nonce, cookie } = await requestNonce(server.baseUrl);
        const message = siweMessage({ address: victim.address, host: phishing, uri: `https://${phishing}`, nonce });
        const res = await relay(message, await victim.signMessage({ message }), cookie, headers);
        expect(res).toEqual({ status: 401, code: "UNAUTHENTICATED" });
      }
    });

    it("refuses a message whose URI is on another origin, a chain outside SIWE_CHAIN_IDS, or an issuedAt in the future", async () => {
      const account = privateKeyToAccount(generatePrivateKey());
      const host = new URL(server.baseUrl).host;
      const cases = [
        (nonce: string) => siweMessage({ address: account.address, host, nonce, uri: `https://${phishing}/login` }),
        (nonce: string) => siweMessage({ address: account.address, host, nonce, uri: `https://${host}` }),
        (nonce: string) => siweMessage({ address: account.address, host, nonce, chainId: 5 }),
        (nonce: string) =>
          siweMessage({ address: account.address, host, nonce, issuedAt: new Date(Date.now() + 10 * 60_000) }),
      ];
      for (const make of cases) {
        const { nonce, cookie } = await requestNonce(server.baseUrl);
        const message = make(nonce);
        const res = await verify({ message, signature: await account.signMessage({ message }) }, { cookie });
        expect(res.status).toBe(401);
        expect((await res.json()).error.code).toBe("UNAUTHENTICATED");
      }
      // The same account signs in with an honest message: the refusals above were about the message alone.
      await expect(signIn(server.baseUrl, account)).resolves.toMatchObject({
        cookie: expect.stringMatching(/^en_session=./),
      });
    });

    it("checks Origin on cookie mutations against the configuration, not X-Forwarded-Host", async () => {
      const { cookie } = await signIn(server.baseUrl);
      const res = await fetch(`${server.baseUrl}/api/developers`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          cookie,
          origin: `https://${phishing}`,
          "x-forwarded-host": phishing,
          "x-forwarded-proto": "https",
        },
        body: JSON.stringify({ name: "Mallory" }),
      });
      expect(res.status).toBe(403);
      expect((await res.json()).error.code).toBe("FORBIDDEN_ORIGIN");
    });
  });

  it("refuses a sign-in without the app's Origin (403 FORBIDDEN_ORIGIN)", async () => {
    for (const origin of [undefined, "https://evil.example"]) {
      const res = await fetch(`${server.baseUrl}/api/auth/verify`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(origin ? { origin } : {}) },
        body: JSON.stringify({ message: "x", signature: "0x00" }),
      });
      expect(res.status).toBe(403);
      expect((await res.json()).error.code).toBe("FORBIDDEN_ORIGIN");
    }
  });

  it("answers malformed bodies with 400 and non-JSON with 415", async () => {
    const malformed = await fetch(`${server.baseUrl}/api/auth/verify`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.baseUrl },
      body: "{not json",
    });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error.code).toBe("INVALID_REQUEST");
    const text = await fetch(`${server.baseUrl}/api/auth/verify`, {
      method: "POST",
      headers: { "content-type": "text/plain", origin: server.baseUrl },
      body: "hi",
    });
    expect(text.status).toBe(415);
  });

  it("logs out with 204 and a cleared cookie", async () => {
    const { cookie } = await signIn(server.baseUrl);
    const res = await fetch(`${server.baseUrl}/api/auth/logout`, {
      method: "POST",
      headers: { cookie, origin: server.baseUrl },
    });
    expect(res.status).toBe(204);
    expect(cookieFrom(res)).toBe("en_session=");
  });

  it("says 401 UNAUTHENTICATED for no session", async () => {
    const res = await fetch(`${server.baseUrl}/api/auth/session`);
    expect(res.status).toBe(401);
    const body = await res.json();
    expect(body.error.code).toBe("UNAUTHENTICATED");
    expect(body.error.requestId).toBe(res.headers.get("x-request-id"));
  });
});
