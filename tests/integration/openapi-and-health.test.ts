import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, executionJobFields } from "../support/jobs";
import { startTestServer, type TestServer } from "../support/test-server";
import { expectError } from "../support/expect-error";

let server: TestServer;
beforeAll(async () => {
  // No LLM endpoint configured, whatever the CI environment holds: text-generate must be disabled. A metrics
  // token, so that /api/metrics is there (it is 404 without one, CONTRACT §14).
  server = await startTestServer({
    embeddedNodes: 1,
    env: { LLM_BASE_URL: "", LLM_API_KEY: "", METRICS_TOKEN: "openapi-test-metrics-token" },
  });
});
afterAll(() => server.close());

interface JsonSchema {
  type?: string;
  format?: string;
  pattern?: string;
  description?: string;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  $ref?: string;
  properties?: Record<string, JsonSchema>;
}
interface Operation {
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; schema: JsonSchema }[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<
    string,
    {
      description: string;
      headers?: Record<string, { schema: JsonSchema }>;
      content?: Record<string, { schema: JsonSchema }>;
    }
  >;
}
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { type?: string; properties?: Record<string, unknown>; required?: string[] }> };
}

/** Every error answer carries the envelope, its request id in the header, and nothing internal. */
async function expectEnvelope(res: Response) {
  const text = await res.text();
  const body = JSON.parse(text) as { error: { code: string; message: string; requestId: string } };
  expect(body.error).toEqual(
    expect.objectContaining({ code: expect.any(String), message: expect.any(String), requestId: expect.any(String) }),
  );
  expect(res.headers.get("x-request-id")).toBe(body.error.requestId);
  expect(text).not.toMatch(/\bat \S+ \(|node_modules|\.ts:\d+|stack/i);
  return body.error;
}

// CONTRACT §2–§8, written out by hand so the document cannot drop a route unnoticed.
const contractPaths = [
  "/api/auth/nonce",
  "/api/auth/verify",
  "/api/auth/session",
  "/api/auth/logout",
  "/api/developers",
  "/api/developers/me",
  "/api/developers/keys",
  "/api/developers/keys/{keyId}",
  "/api/developers/keys/{keyId}/rotate",
  "/api/marketplace/services",
  "/api/marketplace/services/{id}/execute",
  "/api/developers/jobs",
  "/api/developers/jobs/{jobId}",
  "/api/developers/jobs/{jobId}/logs",
  "/api/developers/jobs/{jobId}/telemetry",
  "/api/developers/jobs/{jobId}/events",
  "/api/developers/jobs/{jobId}/cancel",
  "/api/developers/webhooks",
  "/api/developers/webhooks/{endpointId}",
  "/api/developers/webhooks/{endpointId}/rotate-secret",
  "/api/developers/webhooks/{endpointId}/test",
  "/api/developers/webhooks/{endpointId}/deliveries",
  "/api/developers/webhooks/{endpointId}/deliveries/{deliveryId}",
  "/api/developers/webhooks/{endpointId}/deliveries/{deliveryId}/redeliver",
  "/api/developers/jobs/{jobId}/webhook-deliveries",
  "/api/credits/balance",
  "/api/credits/history",
  "/api/developers/metrics",
  "/api/health",
  "/api/openapi.json",
  "/api/metrics",
  "/api/nodes/register",
  "/api/nodes/heartbeat",
  "/api/nodes/claim",
  "/api/nodes/drain",
  "/api/nodes/stop",
  "/api/nodes/jobs/{jobId}/start",
  "/api/nodes/jobs/{jobId}/progress",
  "/api/nodes/jobs/{jobId}/complete",
  "/api/nodes/jobs/{jobId}/fail",
  "/api/nodes/jobs/{jobId}/release",
];

const contractMethods: [string, string][] = [
  ["get", "/api/auth/nonce"],
  ["post", "/api/auth/verify"],
  ["get", "/api/auth/session"],
  ["post", "/api/auth/logout"],
  ["post", "/api/developers"],
  ["get", "/api/developers/me"],
  ["post", "/api/developers/keys"],
  ["get", "/api/developers/keys"],
  ["delete", "/api/developers/keys/{keyId}"],
  ["post", "/api/developers/keys/{keyId}/rotate"],
  ["get", "/api/marketplace/services"],
  ["post", "/api/marketplace/services/{id}/execute"],
  ["post", "/api/developers/jobs"],
  ["get", "/api/developers/jobs"],
  ["get", "/api/developers/jobs/{jobId}"],
  ["get", "/api/developers/jobs/{jobId}/logs"],
  ["get", "/api/developers/jobs/{jobId}/telemetry"],
  ["post", "/api/developers/webhooks"],
  ["get", "/api/developers/webhooks"],
  ["get", "/api/developers/webhooks/{endpointId}"],
  ["patch", "/api/developers/webhooks/{endpointId}"],
  ["delete", "/api/developers/webhooks/{endpointId}"],
  ["post", "/api/developers/webhooks/{endpointId}/rotate-secret"],
  ["post", "/api/developers/webhooks/{endpointId}/test"],
  ["get", "/api/developers/webhooks/{endpointId}/deliveries"],
  ["get", "/api/developers/webhooks/{endpointId}/deliveries/{deliveryId}"],
  ["post", "/api/developers/webhooks/{endpointId}/deliveries/{deliveryId}/redeliver"],
  ["get", "/api/developers/jobs/{jobId}/webhook-deliveries"],
  ["get", "/api/credits/balance"],
  ["get", "/api/credits/history"],
  ["get", "/api/developers/metrics"],
  ["get", "/api/health"],
  ["get", "/api/openapi.json"],
];

let document: OpenApiDocument;
beforeAll(async () => {
  const res = await fetch(`${server.baseUrl}/api/openapi.json`);
  expect(res.status).toBe(200);
  document = (await res.json()) as OpenApiDocument;
});

describe("the OpenAPI document", () => {
  it("is OpenAPI 3.1", () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
  });

  it("documents every path of the contract", () => {
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(contractPaths));
  });

  it.each(contractMethods)("documents %s %s", (method, path) => {
    expect(document.paths[path]).toHaveProperty(method);
  });

  it("describes the ExecutionJob schema with the contract's members", () => {
    const job = document.components.schemas.ExecutionJob;
    expect(job).toBeDefined();
    const members = executionJobFields;
    expect(Object.keys(job.properties ?? {})).toEqual(expect.arrayContaining(members));
    expect(job.required).toEqual(expect.arrayContaining(members));
  });

  it("names the error envelope and the other contract objects as components", () => {
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining([
        "Error",
        "ExecutionService",
        "ApiKey",
        "DeveloperProfile",
        "CreditBalance",
        "CreditEntry",
        "UsageSummary",
        "TelemetryEvent",
        "WebhookEndpoint",
        "WebhookDelivery",
        "WebhookDeliveryDetail",
        "WebhookEvent",
      ]),
    );
  });

  it("documents only routes that exist: none of them falls through to 404 NOT_FOUND or 405", async () => {
    const id = crypto.randomUUID();
    const checked: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      const url = path
        .replace("{keyId}", id)
        .replace("{jobId}", id)
        .replace("{endpointId}", id)
        .replace("{deliveryId}", id)
        .replace("{id}", "token-count");
      for (const method of Object.keys(operations)) {
        const aborter = new AbortController();
        const res = await fetch(`${server.baseUrl}${url}`, {
          method: method.toUpperCase(),
          headers: method === "get" || method === "delete" ? {} : { "content-type": "application/json" },
          body: method === "get" || method === "delete" ? undefined : "{}",
          signal: aborter.signal,
        });
        const what = `${method.toUpperCase()} ${path} → ${res.status}`;
        expect(res.status, what).not.toBe(405);
        if (res.status >= 400) {
          const error = await expectEnvelope(res);
          expect(error.code, what).not.toBe("NOT_FOUND");
        } else {
          aborter.abort();
        }
        checked.push(what);
      }
    }
    expect(checked.length).toBeGreaterThanOrEqual(contractMethods.length);
  });
});

describe("the OpenAPI document tells the truth", () => {
  const operation = (method: string, path: string) => document.paths[path][method];
  const parameter = (method: string, path: string, name: string) =>
    operation(method, path).parameters?.find((p) => p.name === name)?.schema;
  const operations = () =>
    Object.entries(document.paths).flatMap(([path, byMethod]) =>
      Object.entries(byMethod).map(([method, op]) => ({ what: `${method.toUpperCase()} ${path}`, path, op })),
    );

  it("declares the forms a date query parameter takes: an RFC 3339 date-time, a date, or epoch milliseconds", () => {
    for (const [path, names] of [
      ["/api/developers/jobs", ["dateFrom", "dateTo"]],
      ["/api/developers/metrics", ["periodStart", "periodEnd"]],
    ] as const) {
      for (const name of names) {
        const forms = parameter("get", path, name)?.anyOf?.map((f) => [f.type, f.format ?? f.pattern]);
        expect(forms, `${path} ${name}`).toEqual([
          ["string", "date-time"],
          ["string", "date"],
          ["string", "^[0-9]+$"],
        ]);
      }
    }
  });

  it("declares Last-Event-ID (and its query form lastEventId) as a whole number", () => {
    const header = parameter("get", "/api/developers/jobs/{jobId}/events", "Last-Event-ID");
    expect(header).toMatchObject({ type: "integer", minimum: 0 });
    expect(parameter("get", "/api/developers/jobs/{jobId}/events", "lastEventId")).toMatchObject({
      type: "integer",
      minimum: 0,
    });
  });

  it("describes each event-stream message: telemetry (id = sequence), status (the job) and error", () => {
    const stream = operation("get", "/api/developers/jobs/{jobId}/events").responses["200"].content?.[
      "text/event-stream"
    ]?.schema;
    const ref = stream?.$ref?.replace("#/components/schemas/", "") ?? "";
    const messages = (document.components.schemas[ref] as JsonSchema | undefined)?.oneOf ?? [];
    const shape = messages.map((m) => ({
      event: (m.properties?.event as JsonSchema & { enum?: string[] })?.enum?.[0],
      data: m.properties?.data.$ref ?? m.properties?.data.type,
      id: m.properties?.id?.type,
    }));
    expect(shape).toEqual([
      { event: "telemetry", data: "#/components/schemas/TelemetryEvent", id: "integer" },
      { event: "status", data: "#/components/schemas/ExecutionJob", id: undefined },
      { event: "error", data: "object", id: undefined },
    ]);
  });

  it("documents 409 LIMIT_REACHED where a count is capped: API keys, webhook endpoints, nodes, top-ups", () => {
    for (const [method, path] of [
      ["post", "/api/developers/keys"],
      ["post", "/api/developers/webhooks"],
      ["post", "/api/developers/nodes"],
      ["post", "/api/credits/top-ups"],
    ]) {
      expect(operation(method, path).responses["409"]?.description, `${method} ${path}`).toContain("LIMIT_REACHED");
    }
  });

  it("documents 429 with Retry-After and the RateLimit headers on every rate-limited operation, and only there", () => {
    const signIn = ["/api/auth/nonce", "/api/auth/verify"];
    for (const { what, path, op } of operations()) {
      const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
      const limited =
        signIn.includes(path) || ["apiKey", "walletSession", "nodeToken"].some((s) => schemes.includes(s));
      if (!limited) {
        expect(op.responses["429"], what).toBeUndefined();
        continue;
      }
      expect(Object.keys(op.responses["429"]?.headers ?? {}), what).toEqual([
        "Retry-After",
        "RateLimit-Limit",
        "RateLimit-Remaining",
        "RateLimit-Reset",
      ]);
    }
  });

  it("states the rule an email address must follow, beside format: email", () => {
    const body = operation("post", "/api/developers").requestBody?.content["application/json"].schema;
    const email = body?.properties?.email;
    expect(email).toMatchObject({ type: "string", format: "email", pattern: expect.any(String) });
    const rule = new RegExp(email?.pattern ?? "");
    for (const address of ["a@example.com", "first.last+tag@sub.example.org", "x!#$%&'*/=?^_`{|}~-@localhost"])
      expect(rule.test(address), address).toBe(true);
    for (const address of ["a@", "@example.com", "a b@example.com", "a@-example.com"])
      expect(rule.test(address), address).toBe(false);
  });
});

describe("health", () => {
  it("GET /api/health reports the database and the live node count", async () => {
    const res = await fetch(`${server.baseUrl}/api/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toEqual(expect.any(String));
    expect(await res.json()).toEqual({
      status: "ok",
      database: "ok",
      nodes: expect.any(Number),
      payments: "disabled",
      settler: "disabled",
    });
  });

  it("counts the embedded node once it has registered", async () => {
    const health = await eventually(
      async () => (await fetch(`${server.baseUrl}/api/health`)).json() as Promise<{ nodes: number }>,
      (h) => h.nodes === 1,
      20_000,
    );
    expect(Number.isInteger(health.nodes)).toBe(true);
  });

  it("GET /api/health/live answers {status: ok}", async () => {
    const res = await fetch(`${server.baseUrl}/api/health/live`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });
});

describe("the public service list", () => {
  interface ServiceView {
    serviceId: string;
    name: string;
    description: string;
    creditCost: number;
    status: string;
    inputSchema: { type?: string; properties?: Record<string, unknown>; required?: string[]; [k: string]: unknown };
  }
  let services: ServiceView[];
  beforeAll(async () => {
    const res = await fetch(`${server.baseUrl}/api/marketplace/services`);
    expect(res.status).toBe(200);
    services = (await res.json()) as ServiceView[];
  });

  const catalog: [string, string][] = [
    ["text-sentiment", "text"],
    ["text-summarize", "text"],
    ["language-detect", "text"],
    ["token-count", "text"],
    ["image-ocr", "image"],
    ["text-generate", "prompt"],
  ];

  it("needs no credential and lists the six catalog services", () => {
    expect(services.map((s) => s.serviceId)).toEqual(expect.arrayContaining(catalog.map(([id]) => id)));
  });

  it.each(catalog)("%s has a name, an integer creditCost and a JSON Schema requiring %s", (serviceId, required) => {
    const service = services.find((s) => s.serviceId === serviceId);
    expect(service).toEqual({
      serviceId,
      name: expect.stringMatching(/\S/),
      description: expect.stringMatching(/\S/),
      creditCost: expect.any(Number),
      // OWN_NODE_CREDIT_SHARE defaults to 0: on the developer's own nodes the network only routes.
      ownNodeCreditCost: 0,
      status: expect.stringMatching(/^(active|disabled)$/),
      inputSchema: expect.objectContaining({
        type: "object",
        properties: expect.objectContaining({ [required]: expect.anything() }),
      }),
    });
    expect(Number.isInteger(service?.creditCost)).toBe(true);
    expect(service?.creditCost).toBeGreaterThanOrEqual(0);
    expect(service?.inputSchema.required).toContain(required);
  });

  it("shows text-generate disabled while LLM_BASE_URL is unset, and the offline services active", () => {
    const status = Object.fromEntries(services.map((s) => [s.serviceId, s.status]));
    expect(status).toMatchObject({
      "text-generate": "disabled",
      "text-sentiment": "active",
      "text-summarize": "active",
      "language-detect": "active",
      "token-count": "active",
      "image-ocr": "active",
    });
  });
});

describe("error responses", () => {
  it("carry x-request-id equal to error.requestId and never a stack trace", async () => {
    const cases: [Promise<Response>, number, string][] = [
      [fetch(`${server.baseUrl}/api/no/such/route`), 404, "NOT_FOUND"],
      [fetch(`${server.baseUrl}/api/credits/balance`), 401, "INVALID_API_KEY"],
      [fetch(`${server.baseUrl}/api/developers/me`), 401, "UNAUTHENTICATED"],
      [
        fetch(`${server.baseUrl}/api/marketplace/services/token-count/execute`, {
          method: "POST",
          headers: { "x-api-key": "dev_" + "0".repeat(43), "content-type": "application/json" },
          body: "{broken",
        }),
        401,
        "INVALID_API_KEY",
      ],
      [
        fetch(`${server.baseUrl}/api/auth/verify`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: server.baseUrl },
          body: "{broken",
        }),
        400,
        "INVALID_REQUEST",
      ],
      [
        fetch(`${server.baseUrl}/api/auth/verify`, {
          method: "POST",
          headers: { "content-type": "text/plain", origin: server.baseUrl },
          body: "x",
        }),
        415,
        "UNSUPPORTED_MEDIA_TYPE",
      ],
      [
        fetch(`${server.baseUrl}/api/developers`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: "https://evil.example" },
          body: "{}",
        }),
        403,
        "FORBIDDEN_ORIGIN",
      ],
    ];
    for (const [pending, status, code] of cases) await expectError(await pending, status, code);
  });

  it("echo a well-formed incoming x-request-id in the envelope too", async () => {
    const res = await fetch(`${server.baseUrl}/api/no/such/route`, { headers: { "x-request-id": "trace-42.a_b" } });
    const error = await expectError(res, 404, "NOT_FOUND");
    expect(error.requestId).toBe("trace-42.a_b");
  });

  it("generate a req_ id when the incoming one is malformed", async () => {
    const res = await fetch(`${server.baseUrl}/api/credits/balance`, { headers: { "x-request-id": "x".repeat(129) } });
    const error = await expectError(res, 401, "INVALID_API_KEY");
    expect(error.requestId).toMatch(/^req_/);
  });
});
