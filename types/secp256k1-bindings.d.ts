// The part of the `secp256k1` package (cryptocoinjs) that lib/domain/receipt-signers.ts uses: its Node-API
// binding to libsecp256k1 itself, which throws when the prebuilt binary cannot load (the package's main module
// falls back to elliptic's JavaScript instead, silently). A CommonJS module: imported, it is the default export.
declare module "secp256k1/bindings" {
  const secp256k1: {
    /** RFC 6979 ECDSA of a 32-byte digest: a low-s signature (r ‖ s) and its recovery id (0 or 1). */
    ecdsaSign(msg32: Uint8Array, seckey: Uint8Array): { signature: Uint8Array; recid: number };
  };
  export default secp256k1;
}
