// The Ethereum primitives verifyReceipt needs, without a dependency (the package has none): Keccak-256 and
// the recovery of a secp256k1 signer's address (ECDSA public-key recovery, as ecrecover does). Checked against
// viem on real receipts (tests/client/verify-receipt.test.ts). Only for verification: no secret is handled here.

// ── Keccak-256 (the original padding 0x01, not SHA3-256's 0x06) ──────────────────────────────────────
const roundConstants = [
  0x0000000000000001n,
  0x0000000000008082n,
  0x800000000000808an,
  0x8000000080008000n,
  0x000000000000808bn,
  0x0000000080000001n,
  0x8000000080008081n,
  0x8000000000008009n,
  0x000000000000008an,
  0x0000000000000088n,
  0x0000000080008009n,
  0x000000008000000an,
  0x000000008000808bn,
  0x800000000000008bn,
  0x8000000000008089n,
  0x8000000000008003n,
  0x8000000000008002n,
  0x8000000000000080n,
  0x000000000000800an,
  0x800000008000000an,
  0x8000000080008081n,
  0x8000000000008080n,
  0x0000000080000001n,
  0x8000000080008008n,
];
/** Rotation of lane (x, y), at index x + 5y. */
const rotations = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14];
const mask64 = (1n << 64n) - 1n;
const rotl = (v: bigint, n: number) => (n === 0 ? v : ((v << BigInt(n)) | (v >> BigInt(64 - n))) & mask64);

function keccakF(a: bigint[]): void {
  const b = new Array<bigint>(25);
  const c = new Array<bigint>(5);
  for (const rc of roundConstants) {
    for (let x = 0; x < 5; x++) c[x] = a[x]! ^ a[x + 5]! ^ a[x + 10]! ^ a[x + 15]! ^ a[x + 20]!;
    for (let x = 0; x < 5; x++) {
      const d = c[(x + 4) % 5]! ^ rotl(c[(x + 1) % 5]!, 1);
      for (let y = 0; y < 25; y += 5) a[x + y] = a[x + y]! ^ d;
    }
    for (let x = 0; x < 5; x++)
      for (let y = 0; y < 5; y++) b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl(a[x + 5 * y]!, rotations[x + 5 * y]!);
    for (let y = 0; y < 25; y += 5)
      for (let x = 0; x < 5; x++) a[x + y] = b[x + y]! ^ (~b[((x + 1) % 5) + y]! & mask64 & b[((x + 2) % 5) + y]!);
    a[0] = a[0]! ^ rc;
  }
}

export function keccak256(data: Uint8Array): Uint8Array {
  const rate = 136;
  const padded = new Uint8Array((Math.floor(data.length / rate) + 1) * rate);
  padded.set(data);
  padded[data.length] = 0x01;
  padded[padded.length - 1] = padded[padded.length - 1]! | 0x80;
  const state = new Array<bigint>(25).fill(0n);
  for (let offset = 0; offset < padded.length; offset += rate) {
    for (let lane = 0; lane < rate / 8; lane++) {
      let value = 0n;
      for (let i = 7; i >= 0; i--) value = (value << 8n) | BigInt(padded[offset + lane * 8 + i]!);
      state[lane] = state[lane]! ^ value;
    }
    keccakF(state);
  }
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = Number((state[i >> 3]! >> BigInt(8 * (i & 7))) & 0xffn);
  return out;
}

// ── secp256k1 public-key recovery ────────────────────────────────────────────────────────────────────
const P = 2n ** 256n - 2n ** 32n - 977n;
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const G = {
  x: 0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798n,
  y: 0x483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8n,
};

const mod = (a: bigint, m: bigint) => ((a % m) + m) % m;

function invert(a: bigint, m: bigint): bigint {
  let [low, high, lm, hm] = [mod(a, m), m, 1n, 0n];
  while (low > 1n) {
    const q = high / low;
    [low, high, lm, hm] = [high - q * low, low, hm - q * lm, lm];
  }
  return mod(lm, m);
}

function power(base: bigint, exponent: bigint, m: bigint): bigint {
  let result = 1n;
  for (let b = mod(base, m), e = exponent; e > 0n; e >>= 1n, b = (b * b) % m) if (e & 1n) result = (result * b) % m;
  return result;
}

/** Jacobian coordinates (x = X/Z², y = Y/Z³); Z = 0 is the point at infinity. */
type Jacobian = [bigint, bigint, bigint];
const infinity: Jacobian = [0n, 1n, 0n];

function double([x, y, z]: Jacobian): Jacobian {
  if (z === 0n || y === 0n) return infinity;
  const yy = (y * y) % P;
  const s = (4n * x * yy) % P;
  const m = (3n * x * x) % P;
  const x3 = mod(m * m - 2n * s, P);
  return [x3, mod(m * (s - x3) - 8n * yy * yy, P), (2n * y * z) % P];
}

function add(p: Jacobian, q: Jacobian): Jacobian {
  if (p[2] === 0n) return q;
  if (q[2] === 0n) return p;
  const [z1z1, z2z2] = [(p[2] * p[2]) % P, (q[2] * q[2]) % P];
  const u1 = (p[0] * z2z2) % P;
  const u2 = (q[0] * z1z1) % P;
  const s1 = (p[1] * z2z2 * q[2]) % P;
  const s2 = (q[1] * z1z1 * p[2]) % P;
  if (u1 === u2) return s1 === s2 ? double(p) : infinity;
  const h = mod(u2 - u1, P);
  const r = mod(s2 - s1, P);
  const hh = (h * h) % P;
  const hhh = (hh * h) % P;
  const x3 = mod(r * r - hhh - 2n * u1 * hh, P);
  return [x3, mod(r * (u1 * hh - x3) - s1 * hhh, P), (h * p[2] * q[2]) % P];
}

function multiply(point: Jacobian, scalar: bigint): Jacobian {
  let result = infinity;
  for (let i = BigInt(scalar.toString(2).length) - 1n; i >= 0n; i--) {
    result = double(result);
    if ((scalar >> i) & 1n) result = add(result, point);
  }
  return result;
}

const bigintOf = (bytes: Uint8Array) => BigInt(`0x${Buffer.from(bytes).toString("hex") || "0"}`);
const bytes32 = (value: bigint) => Buffer.from(value.toString(16).padStart(64, "0"), "hex");

/**
 * The address that made `signature` (65 bytes r‖s‖v, v 27/28 or 0/1) over the 32-byte `digest`, lowercase;
 * null when the signature is malformed or recovers no point.
 */
export function recoverAddress(digest: Uint8Array, signature: Uint8Array): string | null {
  if (signature.length !== 65) return null;
  const r = bigintOf(signature.subarray(0, 32));
  const s = bigintOf(signature.subarray(32, 64));
  const v = signature[64]! >= 27 ? signature[64]! - 27 : signature[64]!;
  if (r <= 0n || r >= N || s <= 0n || s >= N || (v !== 0 && v !== 1)) return null;
  // R: the curve point with x = r and the parity of y that v names.
  const alpha = mod(r * r * r + 7n, P);
  let y = power(alpha, (P + 1n) / 4n, P);
  if ((y * y) % P !== alpha) return null;
  if (Number(y & 1n) !== v) y = P - y;
  const rInverse = invert(r, N);
  const e = mod(bigintOf(digest), N);
  // Q = r⁻¹ (s·R − e·G)
  const q = add(multiply([G.x, G.y, 1n], mod(-e * rInverse, N)), multiply([r, y, 1n], mod(s * rInverse, N)));
  if (q[2] === 0n) return null;
  const zInverse = invert(q[2], P);
  const zz = (zInverse * zInverse) % P;
  const publicKey = Buffer.concat([bytes32((q[0] * zz) % P), bytes32((q[1] * zz * zInverse) % P)]);
  return `0x${Buffer.from(keccak256(publicKey).subarray(12)).toString("hex")}`;
}
