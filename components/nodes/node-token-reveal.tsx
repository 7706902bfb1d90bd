"use client";

// A node's token, shown the one time the API returns it (added, or rotated), with the exact command that
// starts the node against this deployment: the published package on any machine, or the npm script in a
// checkout of this project. Copying a command copies the token too.
import type { NodeWithToken } from "@/components/data/types";
import { useResourceDialog } from "@/components/resource/resource-dialog";
import { SecretShownOnce } from "@/components/resource/secret-shown-once";
import { CommandBlock } from "@/components/ui/command-block";
import { nodeStartParts } from "@/lib/contract/node-command";

export function NodeTokenReveal({ node, origin }: { node: NodeWithToken; origin: string }) {
  const dialog = useResourceDialog();
  const options = { url: origin, token: node.token, serviceIds: node.serviceIds, concurrency: node.concurrency };
  const onCopied = () => dialog?.onCopy(node.token);
  return (
    <div className="grid gap-4">
      <SecretShownOnce id="node-token" label="Node token" copyWhat="node token" secret={node.token}>
        <p>
          We store only a hash of this token. It lets a machine run your jobs, nothing else: keep it on that machine.
        </p>
      </SecretShownOnce>
      <div className="grid gap-2">
        <p className="text-sm font-medium">Start the node on any machine with Node.js</p>
        <CommandBlock
          parts={nodeStartParts(options)}
          label="Start command"
          copyWhat="start command"
          onCopied={onCopied}
        />
        <p className="text-sm font-medium">Or in a checkout of this project</p>
        <CommandBlock
          parts={nodeStartParts(options, "checkout")}
          label="Start command in a checkout"
          copyWhat="start command for a checkout"
          onCopied={onCopied}
        />
        <p className="text-xs text-muted-foreground">The node shows as live here within seconds of starting.</p>
      </div>
    </div>
  );
}
