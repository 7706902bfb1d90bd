// The deployment's receipt signing key (CONTRACT §13): one per deployment, the same on every instance. It is
// RECEIPT_SIGNING_KEY, or a key generated once and kept in the database sealed under the server secret. Every
// address that ever signed stays listed (receipt_signers), so rotating the key leaves old receipts verifiable.
import { desc, sql } from "drizzle-orm";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { bytesToHex, hexToBytes, type Address, type Hex } from "viem";
import type { Tx } from "@/lib/db/database";
import { receiptSigners } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { processSingleton, processState } from "@/lib/singleton";
import { db } from "./database";
import { seal, unseal } from "./sealing";

/**
 * libsecp256k1's signing, through the `secp256k1` package's prebuilt Node-API binding: a receipt's signature
 * costs about 45 µs of CPU on this project's machines against 300 µs in @noble/curves (viem's), with the same
 * bytes (both RFC 6979, low s). Where the binding cannot load (no prebuilt binary for the platform), viem signs.
 */
const secp256k1 = processSingleton("secp256k1-binding", () =>
  import("secp256k1/bindings").then(
    (module) => module.default,
    (err: unknown) => {
      log.warn("libsecp256k1's binding did not load: receipts are signed in JavaScript (@noble/curves)", { err });
      return null;
    },
  ),
);

/** Whether receipts are signed by libsecp256k1 (the binding loaded), not in JavaScript. */
export const signsNatively = async () => (await secp256k1.get()) !== null;

/** Accounts by address: deriving one from its key is a curve multiplication, done once per process. */
const accounts = processState<Map<string, PrivateKeyAccount>>("receipt-signing-accounts", () => new Map());

/** The account of `key`, whose `sign` (a digest, as receipts are signed) is libsecp256k1's where it loaded. */
export function receiptSigningAccountOf(key: Hex): PrivateKeyAccount {
  const account = privateKeyToAccount(key);
  const secretKey = hexToBytes(key);
  const signing: PrivateKeyAccount = {
    ...account,
    async sign({ hash }) {
      const native = await secp256k1.get();
      if (!native) return account.sign({ hash });
      const { signature, recid } = native.ecdsaSign(hexToBytes(hash), secretKey);
      return `${bytesToHex(signature)}${recid === 0 ? "1b" : "1c"}`;
    },
  };
  accounts.set(account.address, signing);
  return signing;
}

const purpose = "receipt-signing-keys";

/** Only one writer changes the current signer at a time (instances starting together, a rotation). */
const lockSigners = (tx: Tx) => tx.execute(sql`lock table ${receiptSigners} in exclusive mode`);

const currentRow = (tx: Tx) =>
  tx
    .select()
    .from(receiptSigners)
    .where(sql`${receiptSigners.retiredAt} is null`)
    .then((rows) => rows[0]);

/** Makes `address` the current signer, retiring the one before; a generated key is kept sealed to its address. */
async function makeCurrent(tx: Tx, address: Address, sealedKey: string | null): Promise<void> {
  await tx
    .update(receiptSigners)
    .set({ retiredAt: sql`now()` })
    .where(sql`${receiptSigners.retiredAt} is null and ${receiptSigners.address} <> ${address}`);
  await tx
    .insert(receiptSigners)
    .values({ address, sealedKey })
    .onConflictDoUpdate({ target: receiptSigners.address, set: { retiredAt: null } });
}

/** A new key, the current signer from now on. */
async function generateCurrent(tx: Tx): Promise<PrivateKeyAccount> {
  const key = generatePrivateKey();
  const account = receiptSigningAccountOf(key);
  await makeCurrent(tx, account.address, seal(purpose, key, account.address));
  log.info("receipt signing key generated and stored (sealed) in the database", { signer: account.address });
  return account;
}

/** The configured key's account, made the current signer once per process (a changed variable is a rotation). */
const configured = processSingleton("receipt-configured-signer", async () => {
  const account = receiptSigningAccountOf(env().RECEIPT_SIGNING_KEY as Hex);
  await (
    await db()
  ).transaction(async (tx) => {
    await lockSigners(tx);
    if ((await currentRow(tx))?.address !== account.address) await makeCurrent(tx, account.address, null);
  });
  return account;
});

/** The stored current key, or (none yet, or the one before came from a variable since unset) a new one. */
async function storedOrGenerated(): Promise<PrivateKeyAccount> {
  const d = await db();
  const read = async (tx: Tx) => {
    const row = await currentRow(tx);
    if (!row?.sealedKey) return undefined;
    const held = accounts.get(row.address);
    if (held) return held;
    const key = unseal(purpose, row.sealedKey, row.address);
    if (!key)
      throw new Error(
        "The receipt signing key cannot be opened with this server's secret: every instance needs the same SESSION_SECRET.",
      );
    return receiptSigningAccountOf(key as Hex);
  };
  return (
    (await read(d)) ??
    d.transaction(async (tx) => {
      await lockSigners(tx);
      return (await read(tx)) ?? generateCurrent(tx);
    })
  );
}

/**
 * How long this process signs with the stored current key before reading it again. Every receipt used to read
 * it (a statement per receipt on the webhook's hot path); a rotation by another instance, or by the operator
 * command against a running deployment, now takes effect here within this time. A receipt signed meanwhile by
 * the key just retired still verifies: its address stays listed in `previous`.
 */
const currentSignerMs = 1_000;
const current = processState<{ account?: Promise<PrivateKeyAccount>; until: number }>("receipt-current-signer", () => ({
  until: 0,
}));

/** Remembers `account` (read or made just now) as the current signer for the next `currentSignerMs`. */
function remember(account: Promise<PrivateKeyAccount>): Promise<PrivateKeyAccount> {
  Object.assign(current, { account, until: Date.now() + currentSignerMs });
  account.catch(() => {
    if (current.account === account) current.until = 0;
  });
  return account;
}

/**
 * The account receipts are signed with now. With RECEIPT_SIGNING_KEY, that key; otherwise the deployment's
 * stored key, read again once the one held is older than `currentSignerMs` (concurrent callers share one read).
 */
export async function receiptSigningAccount(): Promise<PrivateKeyAccount> {
  if (env().RECEIPT_SIGNING_KEY) return configured.get();
  if (current.account && Date.now() < current.until) return current.account;
  return remember(storedOrGenerated());
}

/** Every address whose receipts this deployment stands behind: the current one, and those it replaced, newest first. */
export async function listReceiptSigners(): Promise<{ current: Address; previous: Address[] }> {
  // Read now, not from the held key: the list is what every instance publishes, and must agree with the table.
  const signer = env().RECEIPT_SIGNING_KEY ? configured.get() : remember(storedOrGenerated());
  const currentAddress = (await signer).address;
  const rows = await (
    await db()
  )
    .select({ address: receiptSigners.address })
    .from(receiptSigners)
    .where(sql`${receiptSigners.address} <> ${currentAddress}`)
    .orderBy(desc(receiptSigners.retiredAt), desc(receiptSigners.createdAt));
  return { current: currentAddress, previous: rows.map((r) => r.address as Address) };
}

/** The operator's rotation (scripts/receipts.ts): a new generated key; the old address stays a signer. */
export async function rotateReceiptSigningKey(): Promise<{ current: Address; retired: Address | null }> {
  if (env().RECEIPT_SIGNING_KEY)
    throw new Error(
      "RECEIPT_SIGNING_KEY is set: rotate by changing it (the old address is kept as a previous signer).",
    );
  const rotated = await (
    await db()
  ).transaction(async (tx) => {
    await lockSigners(tx);
    const before = await currentRow(tx);
    return { account: await generateCurrent(tx), retired: (before?.address as Address | undefined) ?? null };
  });
  // This process signs with the new key at once (others within currentSignerMs).
  remember(Promise.resolve(rotated.account));
  return { current: rotated.account.address, retired: rotated.retired };
}
