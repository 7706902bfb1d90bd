"use client";

// Rotating a node's token, asked for first: the running node stops being able to call in at once, so it
// must be restarted with the new token, shown here once.
import * as React from "react";
import { Loader2Icon, RefreshCwIcon } from "lucide-react";
import { useRotateNodeToken } from "@/components/data/nodes";
import type { Node } from "@/components/data/types";
import { ErrorState } from "@/components/dashboard/states";
import { Button } from "@/components/ui/button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
  DialogTrigger,
} from "@/components/ui/dialog";
import { useSecretCloseGuard } from "@/components/ui/secret-reveal";
import { NodeTokenReveal } from "./node-token-reveal";

export function RotateNodeDialog({ node }: { node: Node }) {
  const rotate = useRotateNodeToken();
  const [open, setOpen] = React.useState(false);
  const rotated = rotate.data ?? null;
  const guard = useSecretCloseGuard({ what: "node token", close: () => openChange(false) });

  function openChange(next: boolean) {
    if (rotate.isPending) return;
    setOpen(next);
    if (!next) {
      rotate.reset();
      guard.reset();
    }
  }

  return (
    <Dialog open={open} onOpenChange={openChange}>
      <DialogTrigger asChild>
        <Button variant="outline" size="sm">
          <RefreshCwIcon /> Rotate token
        </Button>
      </DialogTrigger>
      <DialogContent
        onInteractOutside={(e) => rotated && e.preventDefault()}
        onEscapeKeyDown={(e) => rotated && guard.onEscapeKeyDown(e)}
      >
        {guard.confirmation}
        <DialogHeader>
          <DialogTitle>{rotated ? "New node token" : <>Rotate the token of “{node.name}”?</>}</DialogTitle>
          <DialogDescription>
            {rotated
              ? "Restart the node with this command."
              : "The current token stops working at once: the node can no longer report, and its running jobs are routed again once its lease runs out."}
          </DialogDescription>
        </DialogHeader>
        {rotated && <NodeTokenReveal node={rotated} onCopy={guard.onCopy} />}
        {rotate.isError && <ErrorState title="Could not rotate the token" error={rotate.error} />}
        <DialogFooter>
          {rotated ? (
            <Button onClick={() => openChange(false)}>Done</Button>
          ) : (
            <>
              <Button variant="outline" onClick={() => openChange(false)} disabled={rotate.isPending}>
                Cancel
              </Button>
              <Button onClick={() => rotate.mutate(node.nodeId)} disabled={rotate.isPending}>
                {rotate.isPending && <Loader2Icon className="animate-spin" />} Rotate token
              </Button>
            </>
          )}
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
