import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Native / WASM packages that must be loaded by Node at run time, not bundled.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "tesseract.js",
    "@tesseract.js-data/eng",
    "pg",
    "wink-nlp",
    "wink-eng-lite-web-model",
    "piscina",
    "rate-limiter-flexible",
    "fs-native-extensions",
    // libsecp256k1's prebuilt binding, which signs receipts (lib/domain/receipt-signers.ts).
    "secp256k1",
    // One copy of the metrics' classes for every bundle that counts or scrapes (their values live on globalThis).
    "prom-client",
    // One OpenTelemetry API for every bundle and Next.js itself (its global state is the tracer provider); the
    // SDK is loaded only when traces are configured (lib/tracing.ts), by Node, never bundled.
    "@opentelemetry/api",
    "@opentelemetry/sdk-node",
  ],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
