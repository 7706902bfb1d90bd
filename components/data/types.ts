// The dashboard's view of the wire types: inferred from the same zod schemas that validate the API,
// imported as types only so no server code reaches the browser bundle.
import type { z } from "zod";
import type * as schemas from "@/lib/contract/schemas";

export type ApiKey = z.infer<typeof schemas.ApiKey>;
export type ApiKeyWithSecret = z.infer<typeof schemas.ApiKeyWithSecret>;
export type Profile = z.infer<typeof schemas.Profile>;
export type CreditBalance = z.infer<typeof schemas.CreditBalance>;
export type CreditEntry = z.infer<typeof schemas.CreditEntry>;
export type CreditHistory = z.infer<typeof schemas.CreditHistory>;
export type ExecutionService = z.infer<typeof schemas.ExecutionService>;
export type ExecutionJob = z.infer<typeof schemas.ExecutionJob>;
export type JobList = z.infer<typeof schemas.JobList>;
export type Pagination = z.infer<typeof schemas.Pagination>;
export type Session = z.infer<typeof schemas.SessionResponse>;
export type Scope = z.infer<typeof schemas.Scope>;
export type TelemetryEvent = z.infer<typeof schemas.TelemetryEvent>;
export type TelemetryPage = z.infer<typeof schemas.TelemetryPage>;
export type ExecutionLog = z.infer<typeof schemas.ExecutionLog>;
export type UsageSummary = z.infer<typeof schemas.UsageSummary>;
export type TopUp = z.infer<typeof schemas.TopUp>;
export type TopUpPage = z.infer<typeof schemas.TopUpPage>;
export type TopUpConfig = z.infer<typeof schemas.TopUpConfig>;
export type WebhookEndpoint = z.infer<typeof schemas.WebhookEndpoint>;
export type WebhookEndpointWithSecret = z.infer<typeof schemas.WebhookEndpointWithSecret>;
export type WebhookDelivery = z.infer<typeof schemas.WebhookDelivery>;
export type WebhookDeliveryPage = z.infer<typeof schemas.WebhookDeliveryPage>;
export type WebhookDeliveryDetail = z.infer<typeof schemas.WebhookDeliveryDetail>;
export type WebhookDeliveryAttempt = z.infer<typeof schemas.WebhookDeliveryAttempt>;
export type WebhookEventType = z.infer<typeof schemas.WebhookEventType>;

// Request bodies, as the browser writes them (the schemas' input side, before their transforms).
export type CreateKeyRequest = z.input<typeof schemas.CreateKeyRequest>;
export type UpdateKeyRequest = z.input<typeof schemas.UpdateKeyRequest>;
export type CreateWebhookRequest = z.input<typeof schemas.CreateWebhookRequest>;
export type CreateNodeRequest = z.input<typeof schemas.CreateNodeRequest>;

// Nodes you own (CONTRACT §12).
export type Placement = z.infer<typeof schemas.Placement>;
export type Node = z.infer<typeof schemas.Node>;
export type NodeWithToken = z.infer<typeof schemas.NodeWithToken>;
export type NodesOverview = z.infer<typeof schemas.NodesOverview>;
export type OwnNodeActivity = z.infer<typeof schemas.OwnNodeActivity>;
export type NetworkNode = z.infer<typeof schemas.NetworkNode>;
