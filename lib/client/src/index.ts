// @execution-network/client: a server-side client for the Execution Network API.
export { ExecutionClient } from "./client.js";
export type { ListJobsFilters, StreamJobEventsOptions, WaitForJobOptions } from "./client.js";
export { isRetryable } from "./core.js";
export type { ClientOptions, FetchInit, FetchLike, FetchResponse, RequestOptions, RequestSpec } from "./core.js";
export { CursorPagePromise, PagePromise } from "./pagination.js";
export type { CursorPage } from "./pagination.js";
export {
  ExecutionAbortError,
  ExecutionApiError,
  ExecutionConnectionError,
  ExecutionNetworkError,
  ExecutionTimeoutError,
  JobWaitTimeoutError,
  KeyCreditLimitError,
  isApiError,
} from "./errors.js";
export type {
  ClientErrorCode,
  ExecutionApiErrorInit,
  ExecutionErrorCode,
  KeyCreditLimitDetails,
  KnownErrorCode,
} from "./errors.js";
export type { ByteStream } from "./sse.js";
export * from "./types.js";
export { VERSION } from "./version.js";
export { receiptDigest, ReceiptVerificationError, verifyReceipt } from "./receipts.js";
export type {
  ExecutionReceipt,
  ReceiptCheck,
  ReceiptMessage,
  ReceiptSigners,
  VerifyReceiptOptions,
} from "./receipts.js";
export { payPerCall } from "./pay-per-call.js";
export type { PaidJob, PaymentSigner, PayPerCallOptions } from "./pay-per-call.js";
export { verifyWebhook, WebhookVerificationError } from "./webhooks.js";
export type {
  VerifyWebhookOptions,
  WebhookDelivery,
  WebhookDeliveryAttempt,
  WebhookDeliveryDetail,
  WebhookDeliveryPage,
  WebhookEvent,
  WebhookEventType,
  WebhookHeaders,
} from "./webhooks.js";
