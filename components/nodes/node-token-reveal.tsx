"use client";

// A node's token, shown the one time the API returns it (added, or rotated), with the exact command that
// starts the node against this deployment.
import { nodeStartCommand } from "@/components/data/nodes";
import type { NodeWithToken } from "@/components/data/types";
import { CopyButton } from "@/components/ui/copy-button";
import { SecretReveal } from "@/components/ui/secret-reveal";

export function NodeTokenReveal({ node, onCopy }: { node: NodeWithToken; onCopy?: () => void }) {
  // The browser's own origin is the API the node must call (the dashboard and the API are one app). Shown only
  // after an answer from the API, so never rendered on the server.
  const apiUrl = typeof window === "undefined" ? "" : window.location.origin;
  const command = nodeStartCommand(apiUrl, node.token, node);
  return (
    <div className="grid gap-4">
      <SecretReveal id="node-token" label="Node token" copyLabel="Copy node token" secret={node.token} onCopy={onCopy}>
        <p>
          We store only a hash of this token. It lets a machine run your jobs, nothing else: keep it on that machine.
        </p>
      </SecretReveal>
      <div className="grid gap-2">
        <p id="node-start-label" className="text-sm font-medium">
          Start the node with
        </p>
        <div className="flex gap-2">
          <pre
            aria-label="Start command"
            className="min-w-0 flex-1 overflow-x-auto rounded-md border bg-muted px-3 py-2 font-mono text-xs whitespace-pre-wrap break-all"
          >
            {command}
          </pre>
          <CopyButton value={command} aria-label="Copy start command" onCopied={onCopy} />
        </div>
        <p className="text-xs text-muted-foreground">
          Run it in a checkout of this project (after <code className="font-mono">npm install</code>). The node shows as
          live here within seconds of starting.
        </p>
      </div>
    </div>
  );
}
