import { z } from "zod";
import { withApi } from "@/lib/http/api";
import { parseOr400 } from "@/lib/http/body";
import { streamCredential } from "@/lib/http/guards";
import { jobEventStream } from "@/lib/http/job-event-stream";
import { routes } from "@/lib/http/routes";

const LastEventId = z.coerce.number().int().min(0).default(0);

export const GET = withApi(routes.streamJobEvents, async (req, { principal, params, log }) => {
  const raw = req.headers.get("last-event-id") ?? new URL(req.url).searchParams.get("lastEventId") ?? undefined;
  const lastEventId = parseOr400(LastEventId, raw, "Last-Event-ID");
  const credential = streamCredential(req, principal, "telemetry:read");
  return jobEventStream(principal.accountId, params.jobId, lastEventId, req.signal, log, credential);
});

export * from "@/lib/http/other-methods";
