// A local OpenAI-compatible chat completions server for tests: it speaks the real protocol over HTTP on
// 127.0.0.1 (request validation, error bodies, usage counted with the model's tokenizer), records every
// request, and can be told to fail or stall.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
}

export interface ChatMessage {
  role: string;
  content: string;
}

export interface ChatCompletionRequest {
  model: string;
  messages: ChatMessage[];
  response_format?: { type: string };
  [field: string]: unknown;
}

export type ServerBehaviour =
  /** Answer with `answer(request)`. */
  | { reply: "normal" }
  /** Answer with an OpenAI error body and this status (400, 401, 404, 408, 429, 500, 503 …). */
  | { reply: "error"; status: number; message?: string }
  /** Answer normally after `delayMs`, unless the client goes away first. */
  | { reply: "slow"; delayMs: number }
  /** Close the connection without answering. */
  | { reply: "disconnect" }
  /** Answer with this body as is, like a proxy's HTML error page. */
  | { reply: "raw"; status: number; body: string; contentType?: string };

export interface OpenAiCompatibleServerOptions {
  /** When set, requests without `Authorization: Bearer <apiKey>` get 401 invalid_api_key. */
  apiKey?: string;
  behaviour?: ServerBehaviour;
  /** The assistant's message content; by default a sentence quoting the last user message, or JSON in JSON mode. */
  answer?: (request: ChatCompletionRequest) => string;
  finishReason?: "stop" | "length";
}

export interface OpenAiCompatibleServer {
  /** Base URL including `/v1`, as LLM_BASE_URL would be set. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Changes what the next requests get. */
  behave(behaviour: ServerBehaviour, options?: Pick<OpenAiCompatibleServerOptions, "answer" | "finishReason">): void;
  close(): Promise<void>;
}

const errorTypes: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: "invalid_request_error", code: null, message: "Invalid request." },
  401: { type: "invalid_request_error", code: "invalid_api_key", message: "Incorrect API key provided." },
  403: { type: "invalid_request_error", code: "unsupported_country_region_territory", message: "Forbidden." },
  404: {
    type: "invalid_request_error",
    code: "model_not_found",
    message: "The model does not exist or you do not have access to it.",
  },
  408: { type: "timeout", code: null, message: "Request timed out." },
  429: {
    type: "requests",
    code: "rate_limit_exceeded",
    message: "Rate limit reached for requests. Please try again in 1s.",
  },
  500: {
    type: "server_error",
    code: null,
    message: "The server had an error while processing your request. Sorry about that!",
  },
  503: { type: "server_error", code: null, message: "The engine is currently overloaded, please try again later." },
};

function defaultAnswer(request: ChatCompletionRequest): string {
  const lastUser = [...request.messages].reverse().find((m) => m.role === "user")?.content ?? "";
  if (request.response_format?.type === "json_object") return JSON.stringify({ answer: "ok", prompt: lastUser });
  return `You asked: ${lastUser}`;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "x-request-id": `req_${randomUUID().replaceAll("-", "")}`,
    ...headers,
  });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, message?: string, param: string | null = null) {
  const known = errorTypes[status] ?? {
    type: status >= 500 ? "server_error" : "invalid_request_error",
    code: null,
    message: "Error.",
  };
  const headers: Record<string, string> = status === 429 ? { "retry-after": "1" } : {};
  sendJson(
    res,
    status,
    { error: { message: message ?? known.message, type: known.type, param, code: known.code } },
    headers,
  );
}

/** Why a chat completion request breaks the protocol, as OpenAI words it; undefined when it is valid. */
function invalidRequest(body: unknown): { message: string; param: string | null } | undefined {
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    return { message: "We could not parse the JSON body of your request.", param: null };
  }
  const request = body as Partial<ChatCompletionRequest>;
  if (typeof request.model !== "string" || !request.model)
    return { message: "you must provide a model parameter", param: "model" };
  if (!Array.isArray(request.messages) || request.messages.length === 0) {
    return { message: "Invalid 'messages': empty array. Expected an array with minimum length 1.", param: "messages" };
  }
  for (const [i, m] of request.messages.entries()) {
    if (!m || !["system", "developer", "user", "assistant", "tool"].includes(m.role)) {
      return { message: `Invalid value for 'messages[${i}].role'.`, param: `messages[${i}].role` };
    }
    if (typeof m.content !== "string")
      return { message: `Invalid type for 'messages[${i}].content'.`, param: `messages[${i}].content` };
  }
  if (request.stream) return { message: "This test server does not stream.", param: "stream" };
  const format = request.response_format?.type;
  if (format !== undefined && !["text", "json_object", "json_schema"].includes(format)) {
    return { message: `Invalid value for 'response_format.type': '${format}'.`, param: "response_format.type" };
  }
  if (format === "json_object" && !request.messages.some((m) => /json/i.test(m.content))) {
    return {
      message: "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
      param: "messages",
    };
  }
  return undefined;
}

export async function startOpenAiCompatibleServer(
  options: OpenAiCompatibleServerOptions = {},
): Promise<OpenAiCompatibleServer> {
  let behaviour: ServerBehaviour = options.behaviour ?? { reply: "normal" };
  let answer = options.answer ?? defaultAnswer;
  let finishReason = options.finishReason ?? "stop";
  const requests: RecordedRequest[] = [];

  const complete = (res: ServerResponse, request: ChatCompletionRequest) => {
    const content = answer(request);
    const promptTokens = request.messages.reduce((sum, m) => sum + 4 + countTokens(m.content), 3);
    const completionTokens = countTokens(content);
    sendJson(res, 200, {
      id: `chatcmpl-${randomUUID().replaceAll("-", "").slice(0, 24)}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: request.model,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content, refusal: null, annotations: [] },
          logprobs: null,
          finish_reason: finishReason,
        },
      ],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
      system_fingerprint: "fp_test",
    });
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: unknown = raw;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        // recorded as text; rejected below
      }
      const path = new URL(req.url ?? "/", "http://localhost").pathname;
      requests.push({ method: req.method ?? "", path, headers: req.headers, body });

      if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
        return sendError(res, 401, "Incorrect API key provided. You can find your API key in your account settings.");
      }
      if (path === "/v1/models" && req.method === "GET") {
        return sendJson(res, 200, {
          object: "list",
          data: [{ id: "gpt-4o-mini", object: "model", created: 0, owned_by: "test" }],
        });
      }
      if (path !== "/v1/chat/completions") return sendError(res, 404, `Invalid URL (${req.method} ${path})`);
      if (req.method !== "POST") return sendError(res, 405, `Invalid method for URL (${req.method} ${path})`);
      if (!String(req.headers["content-type"]).startsWith("application/json")) {
        return sendError(res, 400, "Invalid content type: expected application/json.");
      }
      const problem = invalidRequest(body);
      if (problem) return sendError(res, 400, problem.message, problem.param);
      const request = body as ChatCompletionRequest;

      switch (behaviour.reply) {
        case "normal":
          return complete(res, request);
        case "error":
          return sendError(res, behaviour.status, behaviour.message);
        case "disconnect":
          return req.socket.destroy();
        case "raw":
          res.writeHead(behaviour.status, { "content-type": behaviour.contentType ?? "text/html" });
          return res.end(behaviour.body);
        case "slow": {
          const timer = setTimeout(() => complete(res, request), behaviour.delayMs);
          res.on("close", () => clearTimeout(timer));
          return;
        }
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    behave(next, replyOptions = {}) {
      behaviour = next;
      answer = replyOptions.answer ?? options.answer ?? defaultAnswer;
      finishReason = replyOptions.finishReason ?? options.finishReason ?? "stop";
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
