// Lint rules that keep the house in order: Next.js and React hooks rules, typescript-eslint, no import
// loops anywhere (import-x/no-cycle), and the layers of ../shared/STYLE.md — a file may import its own layer
// or one below it, never one above (boundaries/dependencies).
import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import { importX } from "eslint-plugin-import-x";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import boundaries from "eslint-plugin-boundaries";

/** The layers from the top down: each may import itself and anything listed after it in `below`. */
const layers = [
  { type: "app", pattern: "app/**" },
  { type: "components", pattern: "components/**" },
  { type: "http", pattern: "lib/http/**" },
  { type: "start-up", pattern: ["lib/serving.ts", "lib/operator/**", "lib/network/embedded.ts"] },
  { type: "network", pattern: "lib/network/**" },
  { type: "engine", pattern: "lib/engine/**" },
  { type: "domain", pattern: ["lib/domain/**", "lib/payments/**"] },
  { type: "db", pattern: "lib/db/**" },
  { type: "contract", pattern: "lib/contract/**" },
  {
    type: "support",
    pattern: ["lib/env.ts", "lib/log.ts", "lib/limits.ts", "lib/singleton.ts", "lib/server-secret.ts"],
  },
];
/** What each layer may import besides itself: the layers below it, minus what the browser must never load. */
const allowed = {
  app: ["components", "http", "start-up", "network", "engine", "domain", "contract", "support", "sdk"],
  components: ["contract", "sdk"],
  http: ["start-up", "network", "engine", "domain", "db", "contract", "support"],
  "start-up": ["network", "engine", "domain", "db", "contract", "support"],
  network: ["engine", "domain", "db", "contract", "support"],
  engine: ["domain", "db", "contract", "support"],
  domain: ["db", "contract", "support"],
  db: ["contract", "support"],
  contract: ["support"],
  support: [],
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
      "boundaries/elements": [
        ...layers.map(({ type, pattern }) => ({ type, pattern, partialMatch: false })),
        { type: "sdk", pattern: "lib/client/**", partialMatch: false },
      ],
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
    "next-env.d.ts",
    "test-results/**",
    "playwright-report/**",
  ]),
]);
