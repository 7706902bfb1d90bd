// Type-level proof that the SDK's hand-written wire types equal the server's zod schemas: if either
// side changes without the other, `tsc --noEmit` fails here.
import type { z } from "zod";
import type * as server from "@/lib/contract/schemas";
import type { ErrorCode } from "@/lib/domain/errors";
import type * as sdk from "../../lib/client/src/index";

/** True only when A and B are the same type (not merely mutually assignable). */
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Wire<S extends z.ZodType> = z.output<S>;

export const typesMatchServer = {
  Pagination: true satisfies Equals<Wire<typeof server.Pagination>, sdk.Pagination>,
  ErrorEnvelope: true satisfies Equals<Wire<typeof server.ErrorEnvelope>, sdk.ErrorEnvelope>,
  ExecutionService: true satisfies Equals<Wire<typeof server.ExecutionService>, sdk.ExecutionService>,
  ExecutionJob: true satisfies Equals<Wire<typeof server.ExecutionJob>, sdk.ExecutionJob>,
  JobStatus: true satisfies Equals<Wire<typeof server.JobStatus>, sdk.JobStatus>,
  JobListItem: true satisfies Equals<Wire<typeof server.JobListItem>, sdk.JobListItem>,
  JobList: true satisfies Equals<Wire<typeof server.JobList>, sdk.JobList>,
  ExecutionLog: true satisfies Equals<Wire<typeof server.ExecutionLog>, sdk.ExecutionLog>,
  TelemetryEvent: true satisfies Equals<Wire<typeof server.TelemetryEvent>, sdk.TelemetryEvent>,
  TelemetryPage: true satisfies Equals<Wire<typeof server.TelemetryPage>, sdk.TelemetryPage>,
  CreditBalance: true satisfies Equals<Wire<typeof server.CreditBalance>, sdk.CreditBalance>,
  CreditEntry: true satisfies Equals<Wire<typeof server.CreditEntry>, sdk.CreditEntry>,
  CreditHistory: true satisfies Equals<Wire<typeof server.CreditHistory>, sdk.CreditHistory>,
  TopUpConfig: true satisfies Equals<Wire<typeof server.TopUpConfig>, sdk.TopUpConfig>,
  TopUp: true satisfies Equals<Wire<typeof server.TopUp>, sdk.TopUp>,
  TopUpPage: true satisfies Equals<Wire<typeof server.TopUpPage>, sdk.TopUpPage>,
  UsageSummary: true satisfies Equals<Wire<typeof server.UsageSummary>, sdk.UsageSummary>,
  Scope: true satisfies Equals<Wire<typeof server.Scope>, sdk.Scope>,
  WebhookEventType: true satisfies Equals<Wire<typeof server.WebhookEventType>, sdk.WebhookEventType>,
  WebhookEvent: true satisfies Equals<Wire<typeof server.WebhookEvent>, sdk.WebhookEvent>,
  WebhookDelivery: true satisfies Equals<Wire<typeof server.WebhookDelivery>, sdk.WebhookDelivery>,
  WebhookDeliveryPage: true satisfies Equals<Wire<typeof server.WebhookDeliveryPage>, sdk.WebhookDeliveryPage>,
  WebhookDeliveryAttempt: true satisfies Equals<Wire<typeof server.WebhookDeliveryAttempt>, sdk.WebhookDeliveryAttempt>,
  WebhookDeliveryDetail: true satisfies Equals<Wire<typeof server.WebhookDeliveryDetail>, sdk.WebhookDeliveryDetail>,
  ExecutionReceipt: true satisfies Equals<Wire<typeof server.ExecutionReceipt>, sdk.ExecutionReceipt>,
  ReceiptSigners: true satisfies Equals<Wire<typeof server.ReceiptSigners>, sdk.ReceiptSigners>,
  Placement: true satisfies Equals<Wire<typeof server.Placement>, sdk.Placement>,
  Node: true satisfies Equals<Wire<typeof server.Node>, sdk.Node>,
  NodeWithToken: true satisfies Equals<Wire<typeof server.NodeWithToken>, sdk.NodeWithToken>,
  NodeList: true satisfies Equals<Wire<typeof server.NodeList>, sdk.NodeList>,
  CreateNodeParams: true satisfies Equals<z.input<typeof server.CreateNodeRequest>, sdk.CreateNodeParams>,
  // Request bodies the SDK sends must be what the server parses.
  ExecuteRequest: true satisfies Equals<z.input<typeof server.ExecuteRequest>, sdk.ExecuteRequest>,
  CreateJobRequest: true satisfies Equals<z.input<typeof server.CreateJobRequest>, sdk.CreateJobParams>,
  // Every code a developer-facing route can return is known to the SDK (node-agent codes excepted).
  ErrorCode: true satisfies Equals<Exclude<ErrorCode, "INVALID_NODE_TOKEN" | "LEASE_LOST">, sdk.KnownErrorCode>,
};
