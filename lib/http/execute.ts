// The shared tail of both submission routes (execute and developer_job): idempotency header, submission,
// 202 + Location, replay headers.
import { submitJob } from "@/lib/engine/submit-job";
import { IdempotencyKeyHeader, type ExecutionJob } from "@/lib/contract/schemas";
import type { Placement } from "@/lib/contract/vocabulary";
import type { KeyPrincipal } from "./guards";
import { parseOr400 } from "./body";

type RespondJson = (body: ExecutionJob, init: { status: number; headers: Record<string, string> }) => Response;

export function idempotencyKeyOf(req: Request): string | undefined {
  const raw = req.headers.get("idempotency-key");
  return raw === null ? undefined : parseOr400(IdempotencyKeyHeader, raw, "The Idempotency-Key header");
}

export async function submitAndRespond(
  json: RespondJson,
  principal: KeyPrincipal,
  serviceId: string,
  input: Record<string, unknown>,
  idempotencyKey: string | undefined,
  placement?: Placement,
): Promise<Response> {
  const { response, replayed } = await submitJob({
    accountId: principal.accountId,
    apiKeyId: principal.keyId,
    serviceId,
    input,
    placement,
    idempotencyKey,
  });
  return json(response.body, {
    status: response.status,
    headers: {
      location: `/api/developers/jobs/${response.body.jobId}`,
      ...(replayed ? { "idempotent-replayed": "true" } : {}),
    },
  });
}
