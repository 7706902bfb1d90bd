// Credit top-ups are all or nothing (CONTRACT §10): unconfigured, the product says so and nothing else
// changes; half-configured or pointed at another chain, the server refuses to start with a clear reason.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv, paymentsConfig } from "@/lib/env";
import { startLocalChain, type LocalChain } from "../support/chain";
import { signUpDeveloper } from "../support/developer";
import { expectError } from "../support/expect-error";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ embeddedNodes: 0 });
});
afterAll(() => server.close());

describe("a deployment without payment configuration", () => {
  it("says top-ups are not enabled, refuses a submission with PAYMENTS_DISABLED, and health says payments are disabled", async () => {
    expect(await (await fetch(`${server.baseUrl}/api/credits/top-ups/config`)).json()).toEqual({ enabled: false });
    const dev = await signUpDeveloper(server.baseUrl);
    const txHash = `0x${"ab".repeat(32)}`;
    await expectError(
      await dev.session("/api/credits/top-ups", { method: "POST", body: JSON.stringify({ chainId: 1, txHash }) }),
      409,
      "PAYMENTS_DISABLED",
    );
    expect(await (await dev.session("/api/credits/top-ups")).json()).toMatchObject({
      data: [],
      pagination: { total: 0 },
    });
    expect(await (await fetch(`${server.baseUrl}/api/health`)).json()).toMatchObject({
      status: "ok",
      payments: "disabled",
    });
  });
});

describe("payment configuration", () => {
  const complete = {
    PAYMENTS_RPC_URL: "http://127.0.0.1:8545",
    PAYMENTS_CHAIN_ID: "31337",
    PAYMENTS_TOKEN_ADDRESS: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    PAYMENTS_TREASURY_ADDRESS: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    CREDITS_PER_TOKEN: "100",
  };

  it("is enabled only with all five variables; a partial set names each missing one", () => {
    expect(paymentsConfig(parseEnv({}))).toBeUndefined();
    expect(paymentsConfig(parseEnv(complete))).toMatchObject({
      chainId: 31337,
      creditsPerToken: 100n,
      confirmations: 2,
    });
    const { CREDITS_PER_TOKEN: _, PAYMENTS_TREASURY_ADDRESS: __, ...partial } = complete;
    expect(() => parseEnv(partial)).toThrow(
      /CREDITS_PER_TOKEN: required[\s\S]*PAYMENTS_TREASURY_ADDRESS: required|PAYMENTS_TREASURY_ADDRESS: required[\s\S]*CREDITS_PER_TOKEN: required/,
    );
    expect(() => parseEnv({ ...complete, PAYMENTS_TOKEN_ADDRESS: "0x1234" })).toThrow(/PAYMENTS_TOKEN_ADDRESS/);
    // Any letter case is the same token, keyed alike (an x402 authorization's unique key holds it).
    for (const spelling of [
      complete.PAYMENTS_TOKEN_ADDRESS.toLowerCase(),
      `0x${complete.PAYMENTS_TOKEN_ADDRESS.slice(2).toUpperCase()}`,
    ])
      expect(paymentsConfig(parseEnv({ ...complete, PAYMENTS_TOKEN_ADDRESS: spelling }))?.tokenAddress).toBe(
        complete.PAYMENTS_TOKEN_ADDRESS,
      );
    expect(() => parseEnv({ ...complete, CREDITS_PER_TOKEN: "0.5" })).toThrow(/CREDITS_PER_TOKEN/);
  });

  describe("against the RPC", () => {
    let chain: LocalChain;
    beforeAll(async () => {
      chain = await startLocalChain();
    }, 60_000);
    afterAll(() => chain?.stop());

    it("refuses to start when PAYMENTS_CHAIN_ID is not the RPC's chain, and reads the token when it is", async () => {
      const { checkPaymentsChain } = await import("@/lib/payments/watcher");
      const config = paymentsConfig(
        parseEnv({
          ...complete,
          PAYMENTS_RPC_URL: chain.rpcUrl,
          PAYMENTS_TOKEN_ADDRESS: chain.token,
          PAYMENTS_CHAIN_ID: "8453",
        }),
      );
      if (!config) throw new Error("expected a payments configuration");
      await expect(checkPaymentsChain(config)).rejects.toThrow(
        `PAYMENTS_CHAIN_ID is 8453 but the RPC at PAYMENTS_RPC_URL serves chain ${chain.chainId}`,
      );
      await expect(checkPaymentsChain({ ...config, chainId: chain.chainId })).resolves.toBeUndefined();
    });
  });
});
