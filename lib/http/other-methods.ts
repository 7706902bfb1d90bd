// What an API route answers for a method its file does not export: 405 METHOD_NOT_ALLOWED in the
// contract's envelope with Allow, and OPTIONS as 204 with Allow. Next.js's own answers would be a bare 405
// and an Allow naming whatever the file exports. Every route file re-exports this module
// (`export * from "@/lib/http/other-methods"`); a file's own exports take precedence over a star export, so
// only the methods it lacks come from here. HEAD is left to Next.js: it runs the file's GET (this
// module's 405 when the route has no GET). Allow is read from the declarations in routes.ts, the same
// table the OpenAPI document is made from.
import { handleApi } from "./api";
import { errorResponse } from "./error-envelope";
import { routes } from "./routes";

const declared = Object.values(routes).map((r) => ({
  method: r.method.toUpperCase(),
  pattern: new RegExp(`^${r.path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
}));

/** The methods a path answers: its declared ones, HEAD where it has GET, and OPTIONS; a page, GET and HEAD. */
export function allowedMethodsAt(pathname: string): string[] {
  if (!pathname.startsWith("/api/")) return ["GET", "HEAD"];
  const methods = declared.filter((r) => r.pattern.test(pathname)).map((r) => r.method);
  return [...new Set([...methods, ...(methods.includes("GET") ? ["HEAD"] : []), "OPTIONS"])];
}

/** Any route's path params: this module answers for every route file. */
type AnyParams = Record<string, string | string[]>;

/** 405 in the envelope, with Allow: a method a route file lacks, or one no route has (lib/http/server-edge.ts). */
export function methodNotAllowedAt(method: string, pathname: string, requestId: string): Response {
  const allowed = allowedMethodsAt(pathname);
  const response = errorResponse("METHOD_NOT_ALLOWED", `${method} is not allowed on ${pathname}.`, requestId, {
    allowed,
  });
  response.headers.set("allow", allowed.join(", "));
  return response;
}

const methodNotAllowed = handleApi<AnyParams>(async (req, { requestId }) =>
  methodNotAllowedAt(req.method, new URL(req.url).pathname, requestId),
);

export const OPTIONS = handleApi<AnyParams>(async (req) => {
  const allow = allowedMethodsAt(new URL(req.url).pathname).sort().join(", ");
  return new Response(null, { status: 204, headers: { allow } });
});

export {
  methodNotAllowed as GET,
  methodNotAllowed as POST,
  methodNotAllowed as PUT,
  methodNotAllowed as PATCH,
  methodNotAllowed as DELETE,
};
