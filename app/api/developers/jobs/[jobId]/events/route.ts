import { z } from "zod";
import { withApi } from "@/lib/http/api";
import { parseOr400 } from "@/lib/http/body";
import { requireDeveloper, streamCredential } from "@/lib/http/guards";
import { jobEventStream } from "@/lib/http/job-event-stream";

export const dynamic = "force-dynamic";

const LastEventId = z.coerce.number().int().min(0).default(0);

export const GET = withApi<{ jobId: string }>(async (req, { params, log }) => {
  const principal = await requireDeveloper(req, "telemetry:read");
  const raw = req.headers.get("last-event-id") ?? new URL(req.url).searchParams.get("lastEventId") ?? undefined;
  const lastEventId = parseOr400(LastEventId, raw, "Last-Event-ID");
  return jobEventStream(principal.accountId, params.jobId, lastEventId, req.signal, log, streamCredential(req, principal, "telemetry:read"));
});

