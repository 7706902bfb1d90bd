import { noContent, withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";
import { clearedSessionCookie } from "@/lib/http/session";

export const POST = withApi(routes.signOut, async () => noContent({ "set-cookie": clearedSessionCookie() }));
