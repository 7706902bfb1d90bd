// Anything under /api that no route claims: 404 NOT_FOUND in the contract's envelope. The one handler
// without a declaration in lib/http/routes.ts: it answers for every path and method no route declares.
import { DomainError } from "@/lib/domain/errors";
import { handleApi } from "@/lib/http/api";

const notFound = handleApi<{ slug: string[] }>(async (req) => {
  throw new DomainError("NOT_FOUND", `No route matches ${req.method} ${new URL(req.url).pathname}.`);
});

export {
  notFound as GET,
  notFound as POST,
  notFound as PUT,
  notFound as PATCH,
  notFound as DELETE,
  notFound as HEAD,
  notFound as OPTIONS,
};
