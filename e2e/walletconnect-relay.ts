// A local WalletConnect relay for the journeys: the relay is WalletConnect's service, outside our system, so
// the tests run this protocol-accurate stand-in (the "irn" JSON-RPC over WebSocket that @walletconnect/core
// 2.x speaks) and point both the page and the test's phone wallet at it.
//
// What it implements, as the real relay does:
// - irn_subscribe / irn_batchSubscribe / irn_unsubscribe: a connection's subscriptions to topics, each with an id;
// - irn_publish: the message is kept for its TTL (the relay's mailbox) and delivered to every other connection
//   subscribed to the topic as an irn_subscription request carrying that subscription's id; a connection that
//   subscribes later receives what the mailbox holds for the topic (the wallet pairs after the page proposed);
// - irn_batchFetchMessages: what the mailbox holds for topics, not yet delivered to this connection;
// - wc_proposeSession / wc_approveSession (Sign 2.22+): the relay subscribes the proposer to the pairing topic
//   and publishes the proposal there, and on approval the proposal's answer on the pairing topic and the settlement on the new session
//   topic, to which it subscribes the approving wallet.
// Any auth JWT is accepted (the real relay checks its signature and the project id). A method it does not know
// is answered with JSON-RPC -32601 and recorded, so a test can tell the SDK asked for something new.
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";

// Beside E2E_PORT when a run picks its own port (as the chain is, one above it), else 8547.
export const e2eRelayPort = Number(
  process.env.E2E_WALLETCONNECT_RELAY_PORT ?? (process.env.E2E_PORT ? Number(process.env.E2E_PORT) + 2 : 8547),
);
export const e2eRelayUrl = `ws://127.0.0.1:${e2eRelayPort}`;

/** The server's WalletConnect configuration for the journeys: sign-in offers it, through the local relay. */
export const e2eWalletConnectEnv = {
  NEXT_PUBLIC_WALLETCONNECT_PROJECT_ID: "e2e0000000000000000000000000000e2e",
  NEXT_PUBLIC_WALLETCONNECT_RELAY_URL: e2eRelayUrl,
};

// The tags and TTLs the real relay gives the messages it publishes itself (WalletConnect's relay RPC spec).
const proposalTag = 1100;
const proposalResponseTag = 1101;
const settlementTag = 1102;
const fiveMinutes = 300;

interface Stored {
  topic: string;
  message: string;
  publishedAt: number;
  tag: number;
  attestation?: string;
  expiresAt: number;
  from: WebSocket;
  seq: number;
}

interface Client {
  /** topic → subscription id */
  subscriptions: Map<string, string>;
  /** Mailbox messages (by seq) this connection has been given. */
  delivered: Set<number>;
}

export interface LocalRelay {
  url: string;
  /** Every relay method called, in order (for the test's assertions). */
  methods: string[];
  /** Methods the relay did not know. */
  unknownMethods: string[];
  /** How many connections ever opened (the page's and the wallet's). */
  connections(): number;
  close(): Promise<void>;
}

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The SDK's request ids are 19-digit integers, past what a JS number holds: they are read and echoed as their
 * digits, never as numbers (the SDK parses JSON with big integers).
 */
function parseWithRawIds(text: string): { rawId: string; method?: string; params?: unknown; isResponse: boolean } {
  const quoted = text.replace(/([:[,]\s*)(-?\d{16,})(?=\s*[,}\]])/g, '$1"$2"');
  const payload = JSON.parse(quoted) as { id?: unknown; method?: unknown; params?: unknown };
  return {
    rawId: String(payload.id),
    method: typeof payload.method === "string" ? payload.method : undefined,
    params: payload.params,
    isResponse: typeof payload.method !== "string",
  };
}

const requireString = (params: Record<string, unknown>, field: string): string => {
  const value = params[field];
  if (typeof value !== "string" || value === "") throw new RpcError(-32602, `Invalid params: ${field}`);
  return value;
};

export async function startLocalRelay(port = e2eRelayPort): Promise<LocalRelay> {
  const server = new WebSocketServer({
    host: "127.0.0.1",
    port,
    // The real relay refuses a connection without a signed auth JWT; this one wants one that looks like a JWT.
    verifyClient: ({ req }: { req: { url?: string } }) => {
      const auth = new URL(req.url ?? "/", "ws://relay").searchParams.get("auth");
      return typeof auth === "string" && auth.split(".").length === 3;
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });

  const clients = new Map<WebSocket, Client>();
  const mailbox: Stored[] = [];
  const methods: string[] = [];
  const unknownMethods: string[] = [];
  let seq = 0;
  let outgoingId = 1;
  let opened = 0;

  const live = () => {
    const now = Date.now();
    for (let i = mailbox.length - 1; i >= 0; i--) if (mailbox[i].expiresAt <= now) mailbox.splice(i, 1);
    return mailbox;
  };

  const deliver = (socket: WebSocket, client: Client, stored: Stored) => {
    const subscriptionId = client.subscriptions.get(stored.topic);
    if (!subscriptionId || stored.from === socket || client.delivered.has(stored.seq)) return;
    client.delivered.add(stored.seq);
    const data = {
      topic: stored.topic,
      message: stored.message,
      publishedAt: stored.publishedAt,
      tag: stored.tag,
      ...(stored.attestation !== undefined ? { attestation: stored.attestation } : {}),
    };
    socket.send(
      JSON.stringify({
        id: Date.now() * 1000 + (outgoingId++ % 1000),
        jsonrpc: "2.0",
        method: "irn_subscription",
        params: { id: subscriptionId, data },
      }),
    );
  };

  const publish = (from: WebSocket, topic: string, message: string, tag: number, ttl: number, attestation?: string) => {
    const stored: Stored = {
      topic,
      message,
      publishedAt: Date.now(),
      tag,
      attestation,
      expiresAt: Date.now() + ttl * 1000,
      from,
      seq: ++seq,
    };
    live().push(stored);
    for (const [socket, client] of clients) deliver(socket, client, stored);
  };

  const subscribe = (socket: WebSocket, client: Client, topic: string): string => {
    let id = client.subscriptions.get(topic);
    if (!id) {
      id = randomBytes(32).toString("hex");
      client.subscriptions.set(topic, id);
    }
    // After the answer, as the real relay does: what the mailbox holds for the topic.
    setImmediate(() => live().forEach((stored) => stored.topic === topic && deliver(socket, client, stored)));
    return id;
  };

  const handle = (socket: WebSocket, client: Client, method: string, raw: unknown): unknown => {
    const params = (raw ?? {}) as Record<string, unknown>;
    const ttl = typeof params.ttl === "number" ? params.ttl : fiveMinutes;
    const attestation = typeof params.attestation === "string" ? params.attestation : undefined;
    switch (method) {
      case "irn_subscribe":
        return subscribe(socket, client, requireString(params, "topic"));
      case "irn_batchSubscribe": {
        const topics = params.topics;
        if (!Array.isArray(topics)) throw new RpcError(-32602, "Invalid params: topics");
        return topics.map((topic) => subscribe(socket, client, String(topic)));
      }
      case "irn_unsubscribe":
        client.subscriptions.delete(requireString(params, "topic"));
        return true;
      case "irn_publish":
        publish(
          socket,
          requireString(params, "topic"),
          requireString(params, "message"),
          Number(params.tag ?? 0),
          ttl,
          attestation,
        );
        return true;
      case "irn_batchFetchMessages": {
        const topics = new Set((params.topics as unknown[] | undefined)?.map(String));
        const messages = live()
          .filter((m) => topics.has(m.topic) && m.from !== socket && !client.delivered.has(m.seq))
          .map((m) => {
            client.delivered.add(m.seq);
            return {
              topic: m.topic,
              message: m.message,
              publishedAt: m.publishedAt,
              tag: m.tag,
              attestation: m.attestation,
            };
          });
        return { messages, hasMore: false };
      }
      case "wc_proposeSession":
        // The proposer does not subscribe to its new pairing topic itself: the relay does it here.
        subscribe(socket, client, requireString(params, "pairingTopic"));
        publish(
          socket,
          requireString(params, "pairingTopic"),
          requireString(params, "sessionProposal"),
          proposalTag,
          fiveMinutes,
          attestation,
        );
        return true;
      case "wc_approveSession": {
        const pairingTopic = requireString(params, "pairingTopic");
        const sessionTopic = requireString(params, "sessionTopic");
        subscribe(socket, client, sessionTopic);
        publish(
          socket,
          pairingTopic,
          requireString(params, "sessionProposalResponse"),
          proposalResponseTag,
          fiveMinutes,
        );
        publish(socket, sessionTopic, requireString(params, "sessionSettlementRequest"), settlementTag, fiveMinutes);
        return true;
      }
      default:
        unknownMethods.push(method);
        throw new RpcError(-32601, `Method not found: ${method}`);
    }
  };

  server.on("connection", (socket) => {
    opened += 1;
    const client: Client = { subscriptions: new Map(), delivered: new Set() };
    clients.set(socket, client);
    // The node SDK treats 35 s without a ping as a dead connection; the real relay pings every 30 s.
    const heartbeat = setInterval(() => socket.ping(), 20_000);
    socket.on("close", () => {
      clearInterval(heartbeat);
      clients.delete(socket);
    });
    socket.on("message", (data) => {
      let request: ReturnType<typeof parseWithRawIds>;
      try {
        request = parseWithRawIds(data.toString());
      } catch {
        socket.send(JSON.stringify({ id: null, jsonrpc: "2.0", error: { code: -32700, message: "Parse error" } }));
        return;
      }
      if (request.isResponse || !request.method) return; // the acknowledgement of an irn_subscription
      methods.push(request.method);
      let body: string;
      try {
        body = `"result":${JSON.stringify(handle(socket, client, request.method, request.params))}`;
      } catch (error) {
        const { code, message } =
          error instanceof RpcError ? error : { code: -32603, message: String((error as Error).message) };
        body = `"error":${JSON.stringify({ code, message })}`;
      }
      const id = /^-?\d+$/.test(request.rawId) ? request.rawId : JSON.stringify(request.rawId);
      socket.send(`{"id":${id},"jsonrpc":"2.0",${body}}`);
    });
  });

  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    methods,
    unknownMethods,
    connections: () => opened,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of clients.keys()) socket.terminate();
        server.close(() => resolve());
      }),
  };
}
