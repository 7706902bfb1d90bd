"use client";

// One webhook delivery opened: what was sent (the headers of its latest attempt and the exact body) and what
// the endpoint answered to each attempt, with Redeliver: what a developer needs to debug their receiver.
import { Loader2Icon, RotateCwIcon } from "lucide-react";
import { formatDateTime, formatDateTimeSeconds } from "@/components/dashboard/format";
import { ErrorState } from "@/components/dashboard/states";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";
import { Skeleton } from "@/components/ui/skeleton";
import type { WebhookDelivery, WebhookDeliveryAttempt, WebhookDeliveryDetail } from "@/components/data/types";
import { useRedeliverWebhook, useWebhookDelivery } from "@/components/data/webhooks";
import { deliveryStatusVariant } from "./deliveries-table";
import { describeDeliveryError } from "./delivery-problem";

/** The body as sent, indented when it is JSON (it always is from us; the copy button keeps the exact bytes). */
function prettyBody(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

const preClass = "max-h-60 overflow-auto rounded-md bg-muted p-3 font-mono text-xs break-all whitespace-pre-wrap";

function RequestSection({ detail, endpointUrl }: { detail: WebhookDeliveryDetail; endpointUrl?: string }) {
  const sent = detail.attemptCount > 0;
  return (
    <section aria-labelledby="delivery-request" className="grid min-w-0 gap-3">
      <h3 id="delivery-request" className="text-sm font-medium">
        Request
      </h3>
      <p className="font-mono text-xs break-all text-muted-foreground">
        POST {endpointUrl ?? "your endpoint"}
        {!sent && " (not sent yet: the timestamp and signature are made at each attempt)"}
      </p>
      <dl aria-label="Request headers" className="grid min-w-0 gap-1 text-xs sm:grid-cols-[max-content_1fr] sm:gap-x-4">
        {Object.entries(detail.request.headers).map(([name, value]) => (
          <div key={name} className="contents">
            <dt className="font-mono text-muted-foreground">{name}</dt>
            <dd className="mb-1 font-mono break-all sm:mb-0">{value}</dd>
          </div>
        ))}
      </dl>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h4 className="text-xs font-medium">Body</h4>
        <CopyButton value={detail.request.body} label="Copy body" />
      </div>
      <pre tabIndex={0} aria-label="Request body" className={preClass}>
        {prettyBody(detail.request.body)}
      </pre>
      <p className="text-xs text-muted-foreground">
        Shown indented; Copy body copies the exact bytes sent, which the signature covers.
      </p>
    </section>
  );
}

function AttemptItem({
  attempt,
  number,
  endpointUrl,
}: {
  attempt: WebhookDeliveryAttempt;
  number: number;
  endpointUrl?: string;
}) {
  const ok = attempt.responseStatus !== null && attempt.responseStatus >= 200 && attempt.responseStatus < 300;
  const problem = describeDeliveryError(attempt.error, endpointUrl);
  return (
    <li aria-label={`Attempt ${number}`} className="grid min-w-0 gap-2 rounded-md border p-3">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs">
        <span className="font-medium">Attempt {number}</span>
        <Badge variant={ok ? "success" : "destructive"}>
          {attempt.responseStatus === null ? "No answer" : `HTTP ${attempt.responseStatus}`}
        </Badge>
        <span className="tabular-nums">{attempt.latencyMs} ms</span>
        <span className="text-muted-foreground">{formatDateTimeSeconds(attempt.attemptedAt)}</span>
      </div>
      {attempt.error && (
        <div className="text-xs">
          <span className="font-mono">{problem?.title ?? attempt.error}</span>
          {problem && <p className="mt-1 text-muted-foreground">{problem.message}</p>}
        </div>
      )}
      {attempt.responseBody !== null && (
        <div className="grid min-w-0 gap-1">
          <span className="text-xs text-muted-foreground">Response body (the first 4 KB)</span>
          <pre tabIndex={0} aria-label={`Response body of attempt ${number}`} className={preClass}>
            {attempt.responseBody === "" ? "(empty)" : attempt.responseBody}
          </pre>
        </div>
      )}
    </li>
  );
}

function AttemptsSection({ detail, endpointUrl }: { detail: WebhookDeliveryDetail; endpointUrl?: string }) {
  // The list holds the last attempts: number them from the first one still shown.
  const firstShown = detail.attemptCount - detail.attempts.length + 1;
  return (
    <section aria-labelledby="delivery-attempts" className="grid min-w-0 gap-3">
      <h3 id="delivery-attempts" className="text-sm font-medium">
        Attempts
      </h3>
      {detail.attempts.length === 0 ? (
        <p className="text-sm text-muted-foreground">Not attempted yet.</p>
      ) : (
        <>
          {firstShown > 1 && (
            <p className="text-xs text-muted-foreground">
              The last {detail.attempts.length} of {detail.attemptCount} attempts.
            </p>
          )}
          <ol className="grid min-w-0 gap-2">
            {detail.attempts.map((attempt, i) => (
              <AttemptItem
                key={attempt.attemptedAt + i}
                attempt={attempt}
                number={firstShown + i}
                endpointUrl={endpointUrl}
              />
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

function DeliveryDetailView({ delivery, endpointUrl }: { delivery: WebhookDelivery; endpointUrl?: string }) {
  const detail = useWebhookDelivery(delivery.endpointId, delivery.deliveryId);
  const redeliver = useRedeliverWebhook(delivery.endpointId);
  const shown = detail.data;
  return (
    <>
      <DialogHeader className="min-w-0">
        <DialogTitle>Webhook delivery</DialogTitle>
        <DialogDescription className="break-all">
          <span className="font-mono">{delivery.eventType}</span> to{" "}
          <span className="font-mono">{endpointUrl ?? delivery.endpointId}</span>
        </DialogDescription>
      </DialogHeader>
      {detail.isPending ? (
        <Skeleton className="h-48" />
      ) : detail.isError ? (
        <ErrorState title="Could not load the delivery" error={detail.error} onRetry={() => detail.refetch()} />
      ) : (
        shown && (
          <>
            <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs">
              <Badge variant={deliveryStatusVariant[shown.status]}>{shown.status}</Badge>
              <span>
                {shown.attemptCount} {shown.attemptCount === 1 ? "attempt" : "attempts"}
              </span>
              {shown.nextAttemptAt && (
                <span className="text-muted-foreground">next {formatDateTime(shown.nextAttemptAt)}</span>
              )}
              <span className="font-mono break-all text-muted-foreground" title="webhook-id">
                {shown.eventId}
              </span>
            </div>
            <RequestSection detail={shown} endpointUrl={endpointUrl} />
            <AttemptsSection detail={shown} endpointUrl={endpointUrl} />
          </>
        )
      )}
      {redeliver.isError && <ErrorState title="Could not redeliver" error={redeliver.error} />}
      <DialogFooter className="items-center">
        {redeliver.isSuccess && (
          <p role="status" className="text-sm text-muted-foreground sm:mr-auto">
            Redelivery queued, with the same webhook-id.
          </p>
        )}
        <Button variant="outline" disabled={redeliver.isPending} onClick={() => redeliver.mutate(delivery.deliveryId)}>
          {redeliver.isPending ? <Loader2Icon className="animate-spin" /> : <RotateCwIcon />}
          Redeliver
        </Button>
      </DialogFooter>
    </>
  );
}

/** The delivery `delivery` opened in a dialog (null: closed). */
export function DeliveryDialog({
  delivery,
  endpointUrl,
  onClose,
}: {
  delivery: WebhookDelivery | null;
  endpointUrl?: string;
  onClose: () => void;
}) {
  return (
    <Dialog open={delivery !== null} onOpenChange={(open) => !open && onClose()}>
      <DialogContent className="sm:max-w-3xl">
        {delivery && <DeliveryDetailView key={delivery.deliveryId} delivery={delivery} endpointUrl={endpointUrl} />}
      </DialogContent>
    </Dialog>
  );
}
