// What an API route answers for a method its file does not export: 405 METHOD_NOT_ALLOWED in the
// contract's envelope with Allow, and OPTIONS as 204 with Allow. Next.js's own answers would be a bare 405
// and an Allow naming whatever the file exports. Every route file re-exports this module
// (`export * from "@/lib/http/other-methods"`); a file's own exports take precedence over a star export, so
// only the methods it lacks come from here. HEAD is left to Next.js: it runs the file's GET (this
// module's 405 when the route has no GET). Allow is read from the declarations in routes.ts, the same
// table the OpenAPI document is made from.
import { DomainError } from "@/lib/domain/errors";
import { handleApi } from "./api";
import { routes } from "./routes";

const declared = Object.values(routes).map((r) => ({
  method: r.method.toUpperCase(),
  pattern: new RegExp(`^${r.path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
}));

/** The methods a path answers: its declared ones, HEAD where it has GET, and OPTIONS. */
export function allowedMethodsAt(pathname: string): string[] {
  const methods = declared.filter((r) => r.pattern.test(pathname)).map((r) => r.method);
  return [...new Set([...methods, ...(methods.includes("GET") ? ["HEAD"] : []), "OPTIONS"])];
}

/** Any route's path params: this module answers for every route file. */
type AnyParams = Record<string, string | string[]>;

const refuse = handleApi<AnyParams>(async (req) => {
  const { pathname } = new URL(req.url);
  throw new DomainError("METHOD_NOT_ALLOWED", `${req.method} is not allowed on ${pathname}.`, {
    allowed: allowedMethodsAt(pathname),
  });
});

async function methodNotAllowed(req: Request, ctx?: { params: Promise<AnyParams> }): Promise<Response> {
  const response = await refuse(req, ctx);
  response.headers.set("allow", allowedMethodsAt(new URL(req.url).pathname).join(", "));
  return response;
}

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
