"use client";

import { TriangleAlertIcon } from "lucide-react";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";
import { CopyButton } from "@/components/ui/copy-button";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";

/**
 * Shows a key's secret the one time the API returns it. The secret lives only in the state of the
 * dialog rendering this; closing the dialog drops it for good.
 */
export function SecretReveal({ secret, children }: { secret: string; children?: React.ReactNode }) {
  return (
    <div className="grid gap-4">
      <div className="grid gap-2">
        <Label htmlFor="api-key-secret">Your new API key</Label>
        <div className="flex gap-2">
          <Input
            id="api-key-secret"
            readOnly
            value={secret}
            spellCheck={false}
            autoComplete="off"
            className="font-mono text-xs"
            onFocus={(e) => e.currentTarget.select()}
          />
          <CopyButton value={secret} aria-label="Copy API key" />
        </div>
      </div>
      <Alert variant="warning">
        <TriangleAlertIcon />
        <AlertTitle>Copy it now: you won&apos;t see it again</AlertTitle>
        <AlertDescription>
          <p>
            We store only a hash of this key. Keep it in a secret manager or an environment variable such as{" "}
            <code className="font-mono">EXECUTION_NETWORK_API_KEY</code>, never in source code.
          </p>
          {children}
        </AlertDescription>
      </Alert>
    </div>
  );
}
