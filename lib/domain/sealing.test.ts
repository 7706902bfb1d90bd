import { describe, expect, it } from "vitest";
import { seal, unseal } from "./sealing";
import { decryptSecret, encryptSecret } from "./webhook-signing";

// env() reads process.env once per process, and each test file runs in its own.
process.env.SESSION_SECRET = "fixed-test-secret-for-sealing-vectors-0123456789";

/**
 * Sealed under the SESSION_SECRET above by the code before sealing.ts was the one module: webhook-signing's
 * own HKDF + AES-GCM (`encryptSecret`) and `seal(secret, derivedKey("dashboard-keys"), keyId)`. Stored
 * rows hold values like these; they must keep opening.
 */
const sealedBefore = {
  webhookSecret: {
    sealed: "v1.41bHkzq2DTkl_dZT.rQXYMCl-kMd2SZpv07m9Xg.1pWG1EurfprxFlgN4vxtHkwa81OFmn2PoaLnuHVs_wtLGZvIin8",
    plain: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  },
  dashboardKey: {
    sealed: "v1.6T3FZW0Qqd6cUqnD.8Fdq9ks0zWFaUwyR6N6RbQ.nkMrLFQWZ20ziQnSHOso6dHmRKy9t2rhAm2RQNt6yegLj9bGvjmag_s",
    plain: "dev_live_0123456789abcdefghijklmnopqrstuv",
    keyId: "7d9c2a4e-5b1f-4c3a-9e8d-2f6a1b0c3d4e",
  },
};

describe("sealed secrets stored before the sealing module was shared", () => {
  it("a webhook secret still opens", () => {
    expect(decryptSecret(sealedBefore.webhookSecret.sealed)).toBe(sealedBefore.webhookSecret.plain);
  });

  it("a dashboard key's secret still opens with its key id", () => {
    const { sealed, plain, keyId } = sealedBefore.dashboardKey;
    expect(unseal("dashboard-keys", sealed, keyId)).toBe(plain);
  });
});

describe("sealing", () => {
  it("opens what it sealed, for the same purpose and context only", () => {
    const sealed = seal("dashboard-keys", "dev_secret", "row-1");
    expect(sealed).not.toContain("dev_secret");
    expect(unseal("dashboard-keys", sealed, "row-1")).toBe("dev_secret");
    expect(unseal("webhook-secrets/v1", sealed, "row-1")).toBeNull();
    expect(unseal("dashboard-keys", sealed, "row-2")).toBeNull();
  });

  it("never seals the same secret to the same text twice (a fresh nonce each time)", () => {
    expect(seal("webhook-secrets/v1", "whsec_x")).not.toBe(seal("webhook-secrets/v1", "whsec_x"));
  });

  it("refuses an altered value instead of returning garbage", () => {
    const sealed = encryptSecret("whsec_abc");
    const [v, iv, tag, ciphertext] = sealed.split(".");
    const flipped = Buffer.from(ciphertext, "base64url");
    flipped[0] ^= 1;
    expect(unseal("webhook-secrets/v1", [v, iv, tag, flipped.toString("base64url")].join("."))).toBeNull();
    expect(() => decryptSecret(`${v}.${iv}.${tag.slice(2)}.${ciphertext}`)).toThrow(/does not open/);
    expect(decryptSecret(sealed)).toBe("whsec_abc");
  });
});
