// "Call it from your code": the request the playground would send, as curl and with the client library.
import Link from "next/link";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { codeExamples } from "./code-examples";
import type { InputValues } from "./input-schema";

function CodeBlock({ title, copyLabel, code }: { title: string; copyLabel: string; code: string }) {
  return (
    <div className="min-w-0 overflow-hidden rounded-md border">
      <div className="flex items-center justify-between gap-2 border-b bg-muted/40 px-3 py-1.5">
        <span className="text-xs font-medium text-muted-foreground">{title}</span>
        <CopyButton value={code} label={copyLabel} className="h-7 shrink-0" />
      </div>
      <pre
        tabIndex={0}
        aria-label={`${title} example`}
        className="max-h-80 overflow-auto p-3 font-mono text-xs leading-relaxed"
      >
        {code}
      </pre>
    </div>
  );
}

export function CodePanel({
  apiBaseUrl,
  serviceId,
  input,
}: {
  apiBaseUrl: string;
  serviceId: string;
  input: InputValues;
}) {
  const examples = codeExamples(apiBaseUrl, serviceId, input);
  return (
    <Card className="min-w-0 gap-4">
      <CardHeader>
        <CardTitle className="text-base">Call it from your code</CardTitle>
      </CardHeader>
      <CardContent className="grid min-w-0 gap-4">
        <CodeBlock title="curl" copyLabel="Copy curl" code={examples.curl} />
        <CodeBlock title="@execution-network/client (Node.js)" copyLabel="Copy code" code={examples.client} />
        <p className="text-xs text-muted-foreground">
          Built from the input above. Use a key with <code className="font-mono">services:execute</code> from{" "}
          <Link href="/keys" className="underline">
            API keys
          </Link>
          ; keep it on your server.
          {examples.shortened && " Long values (such as an image's base64) are shortened here."}
        </p>
      </CardContent>
    </Card>
  );
}
