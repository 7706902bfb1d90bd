"use client";

// Adding a node: its name, region and services; the answer's token is shown once with the start command.
import * as React from "react";
import { PlusIcon } from "lucide-react";
import { useAddNode } from "@/components/data/nodes";
import type { ExecutionService } from "@/components/data/types";
import { ChoiceList } from "@/components/resource/choice-list";
import { DoneFooter, ResourceDialog, ResourceDialogHeader, ResourceForm } from "@/components/resource/resource-dialog";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/text-field";
import { NodeTokenReveal } from "./node-token-reveal";

type ServiceChoice = Pick<ExecutionService, "serviceId" | "name" | "status">;

export function AddNodeDialog({ services, origin }: { services: ServiceChoice[]; origin: string }) {
  const addNode = useAddNode();
  const offline = services.filter((s) => s.status === "active").map((s) => s.serviceId);
  const [name, setName] = React.useState("");
  const [region, setRegion] = React.useState("");
  const [selected, setSelected] = React.useState<string[]>(offline);
  const [formError, setFormError] = React.useState<string | null>(null);
  const added = addNode.data ?? null;

  function forget() {
    addNode.reset();
    setName("");
    setRegion("");
    setSelected(offline);
    setFormError(null);
  }

  function submit() {
    addNode.reset();
    const trimmed = name.trim();
    if (!trimmed) return setFormError("Give the node a name, e.g. the machine it runs on.");
    if (trimmed.length > 80) return setFormError("Use at most 80 characters for the name.");
    if (region.trim().length > 40) return setFormError("Use at most 40 characters for the region.");
    if (selected.length === 0) return setFormError("Choose at least one service.");
    setFormError(null);
    addNode.mutate({ name: trimmed, serviceIds: selected, ...(region.trim() ? { region: region.trim() } : {}) });
  }

  return (
    <ResourceDialog
      trigger={
        <Button>
          <PlusIcon /> Add node
        </Button>
      }
      secret={added?.token ?? null}
      secretName="node token"
      isBusy={addNode.isPending}
      onClosed={forget}
      className="sm:max-w-xl"
    >
      {added ? (
        <>
          <ResourceDialogHeader
            title="Node added"
            description={
              <>
                <span className="font-medium text-foreground">{added.name}</span> runs {added.serviceIds.join(", ")},
                and only your jobs.
              </>
            }
          />
          <NodeTokenReveal node={added} origin={origin} />
          <DoneFooter />
        </>
      ) : (
        <ResourceForm
          title="Add a node"
          description="A machine of yours that runs your jobs: those you place on your own nodes, and any others it takes first."
          onSubmit={submit}
          submitLabel="Add node"
          formError={formError}
          requestError={addNode.error}
          errorTitle="Could not add the node"
          isPending={addNode.isPending}
        >
          <TextField
            id="node-name"
            label="Name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            maxLength={80}
            placeholder="gpu-box-1"
          />
          <TextField
            id="node-region"
            label="Region"
            value={region}
            onChange={(e) => setRegion(e.target.value)}
            maxLength={40}
            placeholder="local"
          />
          <ChoiceList
            legend="Services"
            idPrefix="node-service"
            options={services.map((s) => ({ value: s.serviceId, description: s.name }))}
            selected={selected}
            onChange={setSelected}
          />
        </ResourceForm>
      )}
    </ResourceDialog>
  );
}
