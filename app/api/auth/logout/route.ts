import { noContent, withApi } from "@/lib/http/api";
import { checkOrigin } from "@/lib/http/guards";
import { clearedSessionCookie } from "@/lib/http/session";

export const POST = withApi(async (req) => {
  checkOrigin(req);
  return noContent({ "set-cookie": clearedSessionCookie() });
});
