import { withApi } from "@/lib/http/api";
import { idempotencyKeyOf, submitAndRespond } from "@/lib/http/execute";
import { routes } from "@/lib/http/routes";

export const POST = withApi(routes.executeService, async (req, { principal, params, body, json }) =>
  submitAndRespond(json, principal, params.id, body.input, idempotencyKeyOf(req), body.placement),
);

export * from "@/lib/http/other-methods";
