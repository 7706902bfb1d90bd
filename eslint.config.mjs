// Lint rules that keep the house in order: Next.js and React hooks rules, typescript-eslint, no import
// loops anywhere (import-x/no-cycle), and the layers of ../shared/STYLE.md — a file may import its own layer
// or one below it, never one above (boundaries/dependencies).
import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import { importX } from "eslint-plugin-import-x";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import boundaries from "eslint-plugin-boundaries";

/**
 * The layers from the top down (folders: the plugin classifies folders, so lib/serving.ts, lib/env.ts and
 * lib/log.ts — start-up and configuration, imported from everywhere on the server — stand outside them).
 */
const layers = [
  { type: "app", pattern: "app" },
  { type: "components", pattern: "components" },
  { type: "http", pattern: "lib/http" },
  { type: "operator", pattern: "lib/operator" },
  { type: "network", pattern: "lib/network" },
  { type: "engine", pattern: "lib/engine" },
  { type: "domain", pattern: ["lib/domain", "lib/payments"] },
  { type: "db", pattern: "lib/db" },
  { type: "contract", pattern: "lib/contract" },
  { type: "sdk", pattern: "lib/client" },
];
/** What each layer may import besides itself: the layers below it, minus what the browser must never load. */
const allowed = {
  app: ["components", "http", "operator", "network", "engine", "domain", "contract", "sdk"],
  components: ["contract", "sdk"],
  http: ["network", "engine", "domain", "db", "contract"],
  operator: ["network", "engine", "domain", "db", "contract"],
  network: ["engine", "domain", "db", "contract"],
  engine: ["domain", "db", "contract"],
  domain: ["db", "contract"],
  db: ["contract"],
  contract: [],
  sdk: [],
};

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  {
    plugins: { "import-x": importX, boundaries },
    settings: {
      // import-x reads each imported file to follow cycles: it must parse TypeScript and resolve "@/…".
      "import-x/extensions": [".ts", ".tsx", ".mts", ".js", ".mjs"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts", ".tsx", ".mts"] },
      "import-x/resolver-next": [createTypeScriptImportResolver({ alwaysTryTypes: true })],
      "boundaries/elements": layers,
      "import/resolver": { typescript: { alwaysTryTypes: true } },
      "boundaries/include": ["app/**", "components/**", "lib/**"],
    },
    rules: {
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
      "boundaries/dependencies": [
        "error",
        {
          default: "disallow",
          policies: Object.entries(allowed).map(([from, to]) => ({
            from: { element: { type: from } },
            allow: { to: { element: { types: { anyOf: [from, ...to] } } } },
          })),
        },
      ],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // Outside React, a function named use… is not a hook (usePostgres, use(server) in the bench).
    files: ["tests/**", "scripts/**", "e2e/**", "lib/**"],
    ignores: ["lib/client/**"],
    rules: { "react-hooks/rules-of-hooks": "off" },
  },
  {
    // A test reads response bodies whose shape its assertions check; typing each would restate the contract.
    files: ["tests/**", "e2e/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  globalIgnores([
    ".next/**",
    ".data*/**",
    ".bench/**",
    ".scratch/**",
    "lib/client/dist/**",
    "lib/node/dist/**",
    "next-env.d.ts",
    "test-results/**",
    "playwright-report/**",
  ]),
]);
