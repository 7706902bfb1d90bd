import { json, withApi } from "@/lib/http/api";
import { requireSession } from "@/lib/http/guards";

export const dynamic = "force-dynamic";

export const GET = withApi(async (req) => {
  const { address, chainId } = await requireSession(req);
  return json({ address, chainId }, { headers: { "cache-control": "no-store" } });
});
