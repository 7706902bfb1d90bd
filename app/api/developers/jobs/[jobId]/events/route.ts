import { EventStreamCursor } from "@/lib/contract/schemas";
import { withApi } from "@/lib/http/api";
import { parseOr400 } from "@/lib/http/body";
import { streamCredential } from "@/lib/http/guards";
import { jobEventStream } from "@/lib/http/job-event-stream";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.streamJobEvents, async (req, { principal, params, query, log }) => {
  // The header (an EventSource's reconnection) wins over the query the stream was first opened with.
  const header = req.headers.get("last-event-id");
  const lastEventId = header === null ? query.lastEventId : parseOr400(EventStreamCursor, header, "Last-Event-ID");
  const credential = streamCredential(req, principal, "telemetry:read");
  return jobEventStream(principal.accountId, params.jobId, lastEventId, req.signal, log, credential);
});

export * from "@/lib/http/other-methods";
