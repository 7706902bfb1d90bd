"use client";

// The /webhooks page: endpoints (add, enable/disable, rotate secret, send test, delete) and, for the
// endpoint whose Deliveries were asked for, its deliveries: each opens to its request and attempts, with
// Redeliver. A secret is shown once, in the dialog that received it.
import type { PageLink } from "@/components/dashboard/page-links";
import * as React from "react";
import { ListIcon, Loader2Icon, PlusIcon, WebhookIcon } from "lucide-react";
import { useProfile } from "@/components/data/profile";
import { formatDate } from "@/components/dashboard/format";
import { Pager } from "@/components/dashboard/pager";
import { ProblemAlert } from "@/components/dashboard/problem-alert";
import { EmptyState, ErrorState } from "@/components/dashboard/states";
import { ProfileRequired } from "@/components/profile/profile-required";
import { Badge, CodeBadges } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Checkbox } from "@/components/ui/checkbox";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { SecretReveal } from "@/components/ui/secret-reveal";
import { Skeleton } from "@/components/ui/skeleton";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
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

function SecretDialog({ endpoint, onClose }: { endpoint: WebhookEndpointWithSecret | null; onClose: () => void }) {
  return (
    <Dialog open={endpoint !== null} onOpenChange={(open) => !open && onClose()}>
      <DialogContent onInteractOutside={(e) => e.preventDefault()}>
        <DialogHeader>
          <DialogTitle>Signing secret</DialogTitle>
          <DialogDescription>
            For {endpoint?.url}. Verify every delivery with it (verifyWebhook in @execution-network/client).
          </DialogDescription>
        </DialogHeader>
        {endpoint && (
          <SecretReveal
            id="webhook-secret"
            label="Webhook signing secret"
            copyLabel="Copy signing secret"
            secret={endpoint.secret}
          >
            After a rotation the previous secret keeps signing for 24 hours, so receivers can switch over.
          </SecretReveal>
        )}
        <DialogFooter>
          <Button onClick={onClose}>Done</Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

function AddEndpointDialog({ onCreated }: { onCreated: (endpoint: WebhookEndpointWithSecret) => void }) {
  const [open, setOpen] = React.useState(false);
  const [url, setUrl] = React.useState("");
  const [events, setEvents] = React.useState<WebhookEventType[]>(["job.completed", "job.failed"]);
  const [description, setDescription] = React.useState("");
  const create = useCreateWebhookEndpoint();

  function submit(event: React.FormEvent) {
    event.preventDefault();
    create.mutate(
      { url: url.trim(), events, ...(description.trim() ? { description: description.trim() } : {}) },
      {
        onSuccess: (created) => {
          setOpen(false);
          setUrl("");
          setDescription("");
          onCreated(created);
        },
      },
    );
  }

  return (
    <>
      <Button onClick={() => setOpen(true)}>
        <PlusIcon /> Add endpoint
      </Button>
      <Dialog
        open={open}
        onOpenChange={(next) => {
          setOpen(next);
          if (!next && !create.isPending) create.reset();
        }}
      >
        <DialogContent>
          <form onSubmit={submit} className="grid gap-5">
            <DialogHeader>
              <DialogTitle>Add a webhook endpoint</DialogTitle>
              <DialogDescription>
                We POST signed events to this https URL and retry for 24 hours until it answers 2xx.
              </DialogDescription>
            </DialogHeader>
            <div className="grid gap-2">
              <Label htmlFor="webhook-url">Endpoint URL</Label>
              <Input
                id="webhook-url"
                type="url"
                required
                value={url}
                onChange={(e) => setUrl(e.target.value)}
                placeholder="https://example.com/webhooks"
                autoFocus
              />
            </div>
            <fieldset className="grid gap-3">
              <legend className="mb-2 text-sm font-medium">Events</legend>
              {webhookEventTypes
                .filter((t) => t !== "webhook.test")
                .map((type) => (
                  <div key={type} className="flex items-start gap-3">
                    <Checkbox
                      id={`event-${type}`}
                      checked={events.includes(type)}
                      onCheckedChange={(checked) =>
                        setEvents((e) => (checked === true ? [...e, type] : e.filter((x) => x !== type)))
                      }
                      className="mt-0.5"
                    />
                    <div className="grid gap-0.5">
                      <Label htmlFor={`event-${type}`} className="font-mono text-xs">
                        {type}
                      </Label>
                      <p className="text-xs text-muted-foreground">{eventDescriptions[type]}</p>
                    </div>
                  </div>
                ))}
            </fieldset>
            <div className="grid gap-2">
              <Label htmlFor="webhook-description">Description (optional)</Label>
              <Input
                id="webhook-description"
                value={description}
                maxLength={200}
                onChange={(e) => setDescription(e.target.value)}
              />
            </div>
            {create.isError && <ErrorState title="Could not add the endpoint" error={create.error} />}
            <DialogFooter>
              <Button type="button" variant="outline" onClick={() => setOpen(false)} disabled={create.isPending}>
                Cancel
              </Button>
              <Button type="submit" disabled={create.isPending || events.length === 0}>
                {create.isPending && <Loader2Icon className="animate-spin" />}
                Add endpoint
              </Button>
            </DialogFooter>
          </form>
        </DialogContent>
      </Dialog>
    </>
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
  if (endpoints.isPending) return <Skeleton className="h-24" aria-busy="true" />;
  if (endpoints.isError)
    return (
      <ErrorState
        title="Could not load your webhook endpoints"
        error={endpoints.error}
        onRetry={() => endpoints.refetch()}
      />
    );
  const current = endpoints.data.find((e) => e.endpointId === selected) ?? endpoints.data[0];

  return (
    <div className="flex flex-col gap-6">
      <div className="flex items-center justify-between gap-4">
        <p className="text-sm text-muted-foreground">{endpoints.data.length} of 10 endpoints</p>
        <AddEndpointDialog
          onCreated={(created) => {
            setSecret(created);
            setSelected(created.endpointId);
          }}
        />
      </div>
      {endpointAction.isError && <ErrorState title="That did not work" error={endpointAction.error} />}
      {notice && (
        <p role="status" className="text-sm text-muted-foreground">
          {notice}
        </p>
      )}
      {endpoints.data.length === 0 ? (
        <EmptyState
          icon={WebhookIcon}
          title="No webhook endpoints yet"
          description="Add an endpoint to have job changes pushed to you, signed, instead of polling."
        />
      ) : (
        <Card className="py-0">
          <Table aria-label="Webhook endpoints" stackOnPhone>
            <TableHeader>
              <TableRow className="hover:bg-transparent">
                <TableHead>URL</TableHead>
                <TableHead>Events</TableHead>
                <TableHead>Status</TableHead>
                <TableHead>Created</TableHead>
                <TableHead className="text-right">
                  <span className="sr-only">Actions</span>
                </TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {endpoints.data.map((endpoint) => (
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
                  <TableCell className="max-md:basis-full">
                    <div className="flex flex-wrap gap-1 md:justify-end">
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
                    </div>
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </Card>
      )}
      {current && <EndpointDeliveries key={current.endpointId} endpoint={current} reveal={reveal} />}
      <SecretDialog endpoint={secret} onClose={() => setSecret(null)} />
    </div>
  );
}
