"use client";

// Adding a node: its name, region and services; the answer's token is shown once with the start command.
import * as React from "react";
import { Loader2Icon, PlusIcon } from "lucide-react";
import { useAddNode } from "@/components/data/nodes";
import type { ExecutionService } from "@/components/data/types";
import { ErrorState } from "@/components/dashboard/states";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
  DialogTrigger,
} from "@/components/ui/dialog";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { useSecretCloseGuard } from "@/components/ui/secret-reveal";
import { NodeTokenReveal } from "./node-token-reveal";

type ServiceChoice = Pick<ExecutionService, "serviceId" | "name" | "status">;

export function AddNodeDialog({ services }: { services: ServiceChoice[] }) {
  const addNode = useAddNode();
  const offline = services.filter((s) => s.status === "active").map((s) => s.serviceId);
  const [open, setOpen] = React.useState(false);
  const [name, setName] = React.useState("");
  const [region, setRegion] = React.useState("");
  const [selected, setSelected] = React.useState<string[]>(offline);
  const [formError, setFormError] = React.useState<string | null>(null);
  const added = addNode.data ?? null;
  const guard = useSecretCloseGuard({ what: "node token", close: () => openChange(false) });

  function openChange(next: boolean) {
    // Closing mid-request would drop the token the answer carries.
    if (addNode.isPending) return;
    setOpen(next);
    if (!next) {
      guard.reset();
      addNode.reset();
      setName("");
      setRegion("");
      setSelected(offline);
      setFormError(null);
    }
  }

  function submit(event: React.FormEvent) {
    event.preventDefault();
    addNode.reset();
    const trimmed = name.trim();
    if (!trimmed) return setFormError("Give the node a name, e.g. the machine it runs on.");
    if (trimmed.length > 80) return setFormError("Use at most 80 characters for the name.");
    if (region.trim().length > 40) return setFormError("Use at most 40 characters for the region.");
    if (selected.length === 0) return setFormError("Choose at least one service.");
    setFormError(null);
    addNode.mutate({ name: trimmed, serviceIds: selected, ...(region.trim() ? { region: region.trim() } : {}) });
  }

  const toggle = (serviceId: string, checked: boolean) =>
    setSelected((s) =>
      checked
        ? services.map((x) => x.serviceId).filter((id) => id === serviceId || s.includes(id))
        : s.filter((id) => id !== serviceId),
    );

  return (
    <Dialog open={open} onOpenChange={openChange}>
      <DialogTrigger asChild>
        <Button>
          <PlusIcon /> Add node
        </Button>
      </DialogTrigger>
      <DialogContent
        onInteractOutside={(e) => added && e.preventDefault()}
        onEscapeKeyDown={(e) => added && guard.onEscapeKeyDown(e)}
      >
        {guard.confirmation}
        {added ? (
          <>
            <DialogHeader>
              <DialogTitle>Node added</DialogTitle>
              <DialogDescription>
                <span className="font-medium text-foreground">{added.name}</span> runs {added.serviceIds.join(", ")},
                and only your jobs.
              </DialogDescription>
            </DialogHeader>
            <NodeTokenReveal node={added} onCopy={guard.onCopy} />
            <DialogFooter>
              <Button onClick={() => openChange(false)}>Done</Button>
            </DialogFooter>
          </>
        ) : (
          <form onSubmit={submit} noValidate className="grid gap-5">
            <DialogHeader>
              <DialogTitle>Add a node</DialogTitle>
              <DialogDescription>
                A machine of yours that runs your jobs: those you place on your own nodes, and any others it takes
                first.
              </DialogDescription>
            </DialogHeader>
            <div className="grid gap-2">
              <Label htmlFor="node-name">Name</Label>
              <Input
                id="node-name"
                value={name}
                onChange={(e) => setName(e.target.value)}
                maxLength={80}
                placeholder="gpu-box-1"
              />
            </div>
            <div className="grid gap-2">
              <Label htmlFor="node-region">Region</Label>
              <Input
                id="node-region"
                value={region}
                onChange={(e) => setRegion(e.target.value)}
                maxLength={40}
                placeholder="local"
              />
            </div>
            <fieldset className="grid gap-2">
              <legend className="mb-2 text-sm font-medium">Services</legend>
              {services.map((service) => (
                <div key={service.serviceId} className="flex items-center gap-2">
                  <Checkbox
                    id={`node-service-${service.serviceId}`}
                    checked={selected.includes(service.serviceId)}
                    onCheckedChange={(checked) => toggle(service.serviceId, checked === true)}
                  />
                  <Label htmlFor={`node-service-${service.serviceId}`} className="font-mono text-xs font-normal">
                    {service.serviceId}
                  </Label>
                </div>
              ))}
            </fieldset>
            {formError && <p className="text-sm text-destructive">{formError}</p>}
            {addNode.isError && <ErrorState title="Could not add the node" error={addNode.error} />}
            <DialogFooter>
              <Button type="submit" disabled={addNode.isPending}>
                {addNode.isPending && <Loader2Icon className="animate-spin" />} Add node
              </Button>
            </DialogFooter>
          </form>
        )}
      </DialogContent>
    </Dialog>
  );
}
