// Copy-paste examples of the current input: curl and the client library. The key is a placeholder;
// each run of an example gets its own idempotency key.
import type { InputValues } from "./input-schema";

/** Longer strings (an image's base64) are shortened in the examples so they stay readable. */
const longValueChars = 300;

export interface Examples {
  curl: string;
  client: string;
  shortened: boolean;
}

function shortenLongStrings(input: InputValues): { input: InputValues; shortened: boolean } {
  let shortened = false;
  const out: InputValues = {};
  for (const [k, v] of Object.entries(input)) {
    if (typeof v === "string" && v.length > longValueChars) {
      shortened = true;
      out[k] = `${v.slice(0, 48)}…(${v.length.toLocaleString("en")} characters)`;
    } else out[k] = v;
  }
  return { input: out, shortened };
}

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
const indent = (text: string, by: string) => text.split("\n").join(`\n${by}`);

export function codeExamples(apiBaseUrl: string, serviceId: string, values: InputValues): Examples {
  const { input, shortened } = shortenLongStrings(values);
  const url = `${apiBaseUrl.replace(/\/+$/, "")}/api/marketplace/services/${serviceId}/execute`;
  const curl = [
    `# export EXECUTION_NETWORK_API_KEY=dev_••••••••  (a key with services:execute)`,
    `curl -X POST ${shellQuote(url)} \\`,
    `  -H "x-api-key: $EXECUTION_NETWORK_API_KEY" \\`,
    `  -H "Idempotency-Key: $(uuidgen)" \\`,
    `  -H "content-type: application/json" \\`,
    `  -d ${shellQuote(JSON.stringify({ input }))}`,
  ].join("\n");
  const client = [
    `import { randomUUID } from "node:crypto";`,
    `import { ExecutionClient } from "@execution-network/client";`,
    ``,
    `const client = new ExecutionClient({`,
    `  apiKey: process.env.EXECUTION_NETWORK_API_KEY ?? "", // dev_••••••••`,
    `  baseUrl: ${JSON.stringify(apiBaseUrl)},`,
    `});`,
    ``,
    `const job = await client.execute(`,
    `  ${JSON.stringify(serviceId)},`,
    `  ${indent(JSON.stringify(input, null, 2), "  ")},`,
    `  { idempotencyKey: randomUUID() },`,
    `);`,
    `const done = await client.waitForJob(job.jobId);`,
    `console.log(done.status, done.result ?? done.error);`,
  ].join("\n");
  return { curl, client, shortened };
}
