// Anything under /api that no route claims: 404 NOT_FOUND in the contract's envelope.
import { DomainError } from "@/lib/domain/errors";
import { withApi } from "@/lib/http/api";

const notFound = withApi<{ slug: string[] }>(async (req) => {
  throw new DomainError("NOT_FOUND", `No route matches ${req.method} ${new URL(req.url).pathname}.`);
});

export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE, notFound as HEAD, notFound as OPTIONS };
