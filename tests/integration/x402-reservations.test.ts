// A pay-per-call reservation belongs to the request that made it. When the sweep fails a reservation that is
// too old while its request still waits for the settler's turn, and another request takes the authorization
// over, the first request can neither settle nor release what is now the other's: it sends nothing.
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { toHex, type Address, type Hex } from "viem";
import { x402Payments } from "@/lib/db/schema";
import { db } from "@/lib/domain/database";
import type { X402Config } from "@/lib/env";
import {
  failStaleReservations,
  recordSettlement,
  releaseAuthorization,
  reserveAuthorization,
  type PaymentRow,
  type Reservation,
} from "@/lib/payments/x402/store";
import { withDeveloper } from "../support/with-developer";

withDeveloper({ embeddedNodes: 0 });

const chainId = 31_337;
const tokenAddress = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const payer: Address = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const settler = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const config = { chainId } as X402Config;

function reservation(nonce: Hex, value: bigint, idempotencyKey: string): Reservation {
  return {
    chainId,
    tokenAddress,
    authorization: { from: payer, to: settler, value, validAfter: 0n, validBefore: 2n ** 40n, nonce, signature: "0x" },
    serviceId: "token-count",
    input: { text: `paid ${value}` },
    placement: "any",
    fingerprint: `fingerprint-${value}`,
    idempotencyKey,
  };
}

async function reserved(r: Reservation): Promise<PaymentRow> {
  const row = await reserveAuthorization(r);
  if (!row || row === "key held") throw new Error(`not reserved: ${String(row)}`);
  return row;
}

const paymentOf = async (nonce: Hex) =>
  (await (await db()).select().from(x402Payments).where(eq(x402Payments.nonce, nonce)))[0];

describe("a reservation swept while its request still waits", () => {
  it("is taken over by the next request under a new id; the first request can neither settle nor release it", async () => {
    const nonce = toHex(crypto.getRandomValues(new Uint8Array(32)));
    const first = await reserved(reservation(nonce, 10_000n, "k-first"));
    // The first request waits in the settler's turn longer than the sweep's bound.
    await (
      await db()
    )
      .update(x402Payments)
      .set({ updatedAt: sql`now() - interval '1 hour'` })
      .where(eq(x402Payments.id, first.id));
    expect(await failStaleReservations(60_000)).toBeGreaterThanOrEqual(1);

    // Another request with the same authorization's nonce, for a larger value, takes the failed row over.
    const second = await reserved(reservation(nonce, 50_000n, "k-second"));
    expect(second.id).not.toBe(first.id);

    // The first request's turn comes: nothing is signed onto the second's row, nothing is sent.
    const settling = recordSettlement(
      config,
      settler,
      first.id,
      async () => 0,
      async () => ({
        hash: `0x${"ab".repeat(32)}`,
        raw: "0x02",
      }),
    );
    await expect(settling).rejects.toMatchObject({ code: "UNAVAILABLE" });
    // Its error path releases what it thinks it holds.
    await releaseAuthorization(first.id, null);

    const row = await paymentOf(nonce);
    expect(row).toMatchObject({ id: second.id, status: "reserved", value: "50000", idempotencyKey: "k-second" });
    expect(row.settlementTxHash).toBeNull();
  });
});
