import { withApi } from "@/lib/http/api";
import { idempotencyKeyOf, submitAndRespond } from "@/lib/http/execute";
import { routes } from "@/lib/http/routes";
import { answerPaidCall } from "@/lib/http/x402";

export const POST = withApi(routes.executeService, async (req, { principal, params, body, json }) =>
  principal.kind === "payment"
    ? answerPaidCall(req, params.id, body, idempotencyKeyOf(req))
    : submitAndRespond(json, principal, params.id, body.input, idempotencyKeyOf(req), body.placement),
);

export * from "@/lib/http/other-methods";
