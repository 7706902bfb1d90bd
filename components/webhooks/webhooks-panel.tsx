"use client";

// The /webhooks page: endpoints (add, enable/disable, rotate secret, send test, delete) and, for the
// endpoint whose Deliveries were asked for, its deliveries: each opens to its request and attempts, with
// Redeliver. A secret is shown once, in the dialog that received it.
import type { PageLink } from "@/components/dashboard/page-links";
import * as React from "react";
import { ListIcon, PlusIcon, WebhookIcon } from "lucide-react";
import { useProfile } from "@/components/data/profile";
import { formatDate } from "@/components/dashboard/format";
import { Pager } from "@/components/dashboard/pager";
import { ProblemAlert } from "@/components/dashboard/problem-alert";
import { ErrorState } from "@/components/dashboard/states";
import { ProfileRequired } from "@/components/profile/profile-required";
import { ChoiceList } from "@/components/resource/choice-list";
import { DoneFooter, ResourceDialog, ResourceDialogHeader, ResourceForm } from "@/components/resource/resource-dialog";
import { ActionsCell, ActionsHead, ResourceList, ResourceTable } from "@/components/resource/resource-list";
import { SecretShownOnce } from "@/components/resource/secret-shown-once";
import { Badge, CodeBadges } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { TextField } from "@/components/ui/text-field";
import { Skeleton } from "@/components/ui/skeleton";
import { TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { webhookEventTypes } from "@/lib/contract/vocabulary";
import { DeleteEndpointDialog } from "./delete-endpoint-dialog";
import { DeliveriesTable } from "./deliveries-table";
import { DeliveryDialog } from "./delivery-dialog";
import { describeDeliveryError } from "./delivery-problem";
import type {
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  WebhookEventType,
} from "@/components/data/types";
import {
  useCreateWebhookEndpoint,
  useRedeliverWebhook,
  useWebhookDeliveries,
  useWebhookEndpointAction,
  useWebhookEndpoints,
  type WebhookEndpointAction,
} from "@/components/data/webhooks";

const eventDescriptions: Record<WebhookEventType, string> = {
  "job.status_changed": "Every status change of a job",
  "job.completed": "A job completed",
  "job.failed": "A job failed",
  "webhook.test": "Test events (always sent by Send test)",
  "credits.low": "The balance fell below your low-balance threshold (set on your profile)",
};

const defaultEvents: WebhookEventType[] = ["job.completed", "job.failed"];
const eventChoices = webhookEventTypes
  .filter((t) => t !== "webhook.test")
  .map((type) => ({ value: type, description: eventDescriptions[type] }));

/** An endpoint's signing secret, the one time the API returns it (added, or rotated). */
function SigningSecret({ endpoint }: { endpoint: WebhookEndpointWithSecret }) {
  return (
    <>
      <ResourceDialogHeader
        title="Signing secret"
        description={
          <>
            For <span className="break-all">{endpoint.url}</span>. Verify every delivery with it (verifyWebhook in
            @execution-network/client).
          </>
        }
      />
      <SecretShownOnce
        id="webhook-secret"
        label="Webhook signing secret"
        copyWhat="signing secret"
        secret={endpoint.secret}
      >
        After a rotation the previous secret keeps signing for 24 hours, so receivers can switch over.
      </SecretShownOnce>
      <DoneFooter />
    </>
  );
}

/** A rotated secret, in a dialog of its own (Rotate secret is a row action). */
function RotatedSecretDialog({
  endpoint,
  onClose,
}: {
  endpoint: WebhookEndpointWithSecret | null;
  onClose: () => void;
}) {
  return (
    <ResourceDialog
      open={endpoint !== null}
      onOpenChange={(open) => !open && onClose()}
      secret={endpoint?.secret ?? null}
      secretName="signing secret"
    >
      {endpoint && <SigningSecret endpoint={endpoint} />}
    </ResourceDialog>
  );
}

function AddEndpointDialog({ onCreated }: { onCreated: (endpoint: WebhookEndpointWithSecret) => void }) {
  const [url, setUrl] = React.useState("");
  const [events, setEvents] = React.useState<WebhookEventType[]>(defaultEvents);
  const [description, setDescription] = React.useState("");
  const [formError, setFormError] = React.useState<string | null>(null);
  const create = useCreateWebhookEndpoint();
  const created = create.data ?? null;

  function forget() {
    create.reset();
    setUrl("");
    setEvents(defaultEvents);
    setDescription("");
    setFormError(null);
  }

  function submit() {
    create.reset();
    if (!url.trim()) return setFormError("Enter the URL we should send events to.");
    setFormError(null);
    create.mutate(
      { url: url.trim(), events, ...(description.trim() ? { description: description.trim() } : {}) },
      { onSuccess: onCreated },
    );
  }

  return (
    <ResourceDialog
      trigger={
        <Button>
          <PlusIcon /> Add endpoint
        </Button>
      }
      secret={created?.secret ?? null}
      secretName="signing secret"
      isBusy={create.isPending}
      onClosed={forget}
    >
      {created ? (
        <SigningSecret endpoint={created} />
      ) : (
        <ResourceForm
          title="Add a webhook endpoint"
          description="We POST signed events to this https URL and retry for 24 hours until it answers 2xx."
          onSubmit={submit}
          submitLabel="Add endpoint"
          formError={formError}
          requestError={create.error}
          errorTitle="Could not add the endpoint"
          isPending={create.isPending}
          canSubmit={events.length > 0}
        >
          <TextField
            id="webhook-url"
            label="Endpoint URL"
            type="url"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            placeholder="https://example.com/webhooks"
            autoFocus
          />
          <ChoiceList legend="Events" idPrefix="event" options={eventChoices} selected={events} onChange={setEvents} />
          <TextField
            id="webhook-description"
            label="Description (optional)"
            value={description}
            maxLength={200}
            onChange={(e) => setDescription(e.target.value)}
          />
        </ResourceForm>
      )}
    </ResourceDialog>
  );
}

/** `reveal` changes each time Deliveries is pressed: the section is brought into view and focused. */
function EndpointDeliveries({ endpoint, reveal }: { endpoint: WebhookEndpoint; reveal: number }) {
  const [page, setPage] = React.useState<PageLink>({ page: 1 });
  const [opened, setOpened] = React.useState<WebhookDelivery | null>(null);
  const heading = React.useRef<HTMLHeadingElement>(null);
  React.useEffect(() => {
    if (reveal === 0) return;
    heading.current?.scrollIntoView({ block: "start", behavior: "smooth" });
    heading.current?.focus({ preventScroll: true });
  }, [reveal]);
  const deliveries = useWebhookDeliveries(endpoint.endpointId, page);
  const redeliver = useRedeliverWebhook(endpoint.endpointId);
  // The newest delivery refused by policy: every later one would be too, until the endpoint's URL changes.
  const newest = deliveries.data?.data[0];
  const refused = newest && describeDeliveryError(newest.lastError, endpoint.url);

  return (
    <section id="webhook-deliveries" aria-label={`Deliveries to ${endpoint.url}`} className="grid grid-cols-1 gap-3">
      <h2 ref={heading} tabIndex={-1} className="scroll-mt-4 text-base font-medium outline-none">
        Deliveries to <span className="font-mono text-sm break-all">{endpoint.url}</span>
      </h2>
      {redeliver.isError && <ErrorState title="Could not redeliver" error={redeliver.error} />}
      {refused && (
        <ProblemAlert
          problem={{ title: refused.title, message: refused.message, code: newest.lastError ?? undefined }}
        />
      )}
      {deliveries.isPending ? (
        <Skeleton className="h-24" />
      ) : deliveries.isError ? (
        <ErrorState
          title="Could not load the deliveries"
          error={deliveries.error}
          onRetry={() => deliveries.refetch()}
        />
      ) : deliveries.data.data.length === 0 ? (
        <p className="text-sm text-muted-foreground">No deliveries yet. Send a test event to try the endpoint.</p>
      ) : (
        <Card className="py-0">
          <DeliveriesTable
            label="Deliveries"
            deliveries={deliveries.data.data}
            endpointUrl={endpoint.url}
            busyId={redeliver.isPending ? redeliver.variables : null}
            onOpen={setOpened}
            onRedeliver={(d) => redeliver.mutate(d.deliveryId)}
          />
          <div className="p-3">
            <Pager
              pagination={deliveries.data.pagination}
              onPageChange={setPage}
              noun="deliveries"
              isFetching={deliveries.isFetching}
            />
          </div>
        </Card>
      )}
      <DeliveryDialog delivery={opened} endpointUrl={endpoint.url} onClose={() => setOpened(null)} />
    </section>
  );
}

export function WebhooksPanel({ suggestedProfileName }: { suggestedProfileName: string }) {
  // The page seeded the profile (WithProfile): without one there are no endpoints to ask for.
  const hasProfile = useProfile().data != null;
  const endpoints = useWebhookEndpoints({ enabled: hasProfile });
  const [secret, setSecret] = React.useState<WebhookEndpointWithSecret | null>(null);
  const [selected, setSelected] = React.useState<string | null>(null);
  const [reveal, setReveal] = React.useState(0);
  const showDeliveries = (endpointId: string) => {
    setSelected(endpointId);
    setReveal((n) => n + 1);
  };
  // One mutation for the row actions, so their outcome (and failure) shows in one place above the table.
  const endpointAction = useWebhookEndpointAction();
  const act = (endpoint: WebhookEndpoint, action: WebhookEndpointAction) =>
    endpointAction.mutate({ endpoint, action }, { onSuccess: (rotated) => rotated && setSecret(rotated) });
  const busy = endpointAction.isPending ? endpointAction.variables.endpoint.endpointId : null;
  const notice = endpointAction.isSuccess && endpointAction.variables.action === "test" ? "Test event queued." : null;

  if (!hasProfile) return <ProfileRequired what="Webhook endpoints" suggestedName={suggestedProfileName} />;
  const current = endpoints.data?.find((e) => e.endpointId === selected) ?? endpoints.data?.[0];

  return (
    <div className="flex flex-col gap-6">
      <ResourceList
        summary={(all) => `${all.length} of 10 endpoints`}
        action={<AddEndpointDialog onCreated={(created) => setSelected(created.endpointId)} />}
        notice={
          <>
            {endpointAction.isError && <ErrorState title="That did not work" error={endpointAction.error} />}
            {notice && (
              <p role="status" className="text-sm text-muted-foreground">
                {notice}
              </p>
            )}
          </>
        }
        items={endpoints.data}
        error={endpoints.error}
        onRetry={() => endpoints.refetch()}
        errorTitle="Could not load your webhook endpoints"
        empty={{
          icon: WebhookIcon,
          title: "No webhook endpoints yet",
          description: "Add an endpoint to have job changes pushed to you, signed, instead of polling.",
        }}
      >
        {(all) => (
          <ResourceTable label="Webhook endpoints">
            <TableHeader>
              <TableRow className="hover:bg-transparent">
                <TableHead>URL</TableHead>
                <TableHead>Events</TableHead>
                <TableHead>Status</TableHead>
                <TableHead>Created</TableHead>
                <ActionsHead />
              </TableRow>
            </TableHeader>
            <TableBody>
              {all.map((endpoint) => (
                <TableRow key={endpoint.endpointId} aria-selected={endpoint.endpointId === current?.endpointId}>
                  <TableCell className="max-md:basis-full">
                    <button
                      type="button"
                      className="text-left font-mono text-xs break-all underline-offset-4 hover:underline"
                      onClick={() => showDeliveries(endpoint.endpointId)}
                    >
                      {endpoint.url}
                    </button>
                    {endpoint.description && (
                      <div className="text-xs text-muted-foreground">{endpoint.description}</div>
                    )}
                  </TableCell>
                  <TableCell>
                    <CodeBadges values={endpoint.events} />
                  </TableCell>
                  <TableCell>
                    <Badge variant={endpoint.status === "enabled" ? "success" : "muted"}>{endpoint.status}</Badge>
                    {endpoint.disabledReason && (
                      <div className="mt-1 text-xs text-muted-foreground">{endpoint.disabledReason}</div>
                    )}
                  </TableCell>
                  <TableCell className="whitespace-nowrap max-md:hidden">{formatDate(endpoint.createdAt)}</TableCell>
                  <ActionsCell>
                    <Button
                      size="sm"
                      variant={endpoint.endpointId === current?.endpointId ? "secondary" : "outline"}
                      aria-controls="webhook-deliveries"
                      onClick={() => showDeliveries(endpoint.endpointId)}
                    >
                      <ListIcon /> Deliveries
                    </Button>
                    <Button
                      size="sm"
                      variant="outline"
                      disabled={busy === endpoint.endpointId}
                      onClick={() => act(endpoint, "test")}
                    >
                      Send test
                    </Button>
                    <Button
                      size="sm"
                      variant="outline"
                      disabled={busy === endpoint.endpointId}
                      onClick={() => act(endpoint, "toggle")}
                    >
                      {endpoint.status === "enabled" ? "Disable" : "Enable"}
                    </Button>
                    <Button
                      size="sm"
                      variant="outline"
                      disabled={busy === endpoint.endpointId}
                      onClick={() => act(endpoint, "rotate")}
                    >
                      Rotate secret
                    </Button>
                    <DeleteEndpointDialog endpoint={endpoint} disabled={busy === endpoint.endpointId} />
                  </ActionsCell>
                </TableRow>
              ))}
            </TableBody>
          </ResourceTable>
        )}
      </ResourceList>
      {current && <EndpointDeliveries key={current.endpointId} endpoint={current} reveal={reveal} />}
      <RotatedSecretDialog endpoint={secret} onClose={() => setSecret(null)} />
    </div>
  );
}
