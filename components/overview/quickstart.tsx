import Link from "next/link";
import { BookOpenIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Card, CardAction, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";

function firstJobCommand(origin: string) {
  return [
    `curl -X POST ${origin}/api/marketplace/services/text-sentiment/execute \\`,
    `  -H "x-api-key: $EXECUTION_NETWORK_API_KEY" \\`,
    `  -H "content-type: application/json" \\`,
    `  -H "Idempotency-Key: $(uuidgen)" \\`,
    `  -d '{"input": {"text": "The new release is fast and delightful."}}'`,
  ].join("\n");
}

const steps = [
  { title: "Create your profile", href: "/profile" },
  { title: "Create an API key with the services:execute scope", href: "/keys" },
  { title: "Submit a job and follow it on the Jobs page", href: "/jobs" },
];

export function Quickstart({ origin }: { origin: string }) {
  const command = firstJobCommand(origin);
  return (
    <Card>
      <CardHeader>
        <CardTitle>Submit your first job</CardTitle>
        <CardDescription>
          Every service runs as a job on the execution network. The call answers <code className="font-mono">202</code> with the
          job; poll <code className="font-mono">GET /api/developers/jobs/:jobId</code> until it completes.
        </CardDescription>
        <CardAction>
          <Button asChild variant="outline" size="sm">
            <a href="/api/openapi.json" target="_blank" rel="noreferrer">
              <BookOpenIcon /> API reference
            </a>
          </Button>
        </CardAction>
      </CardHeader>
      <CardContent className="grid grid-cols-1 gap-5">
        <ol className="grid gap-2 text-sm">
          {steps.map((step, i) => (
            <li key={step.href} className="flex items-center gap-3">
              <span className="flex size-6 shrink-0 items-center justify-center rounded-full border text-xs font-medium tabular-nums">
                {i + 1}
              </span>
              <Link href={step.href} className="hover:underline">
                {step.title}
              </Link>
            </li>
          ))}
        </ol>
        <div className="relative overflow-hidden rounded-lg border bg-muted/50">
          <div className="flex items-center justify-between border-b px-3 py-1.5">
            <span className="font-mono text-xs text-muted-foreground">shell</span>
            <CopyButton value={command} variant="ghost" size="sm" label="Copy command" />
          </div>
          <pre tabIndex={0} className="overflow-x-auto p-4 font-mono text-xs leading-relaxed outline-none focus-visible:ring-[3px] focus-visible:ring-ring/50">
            <code>{command}</code>
          </pre>
        </div>
      </CardContent>
    </Card>
  );
}
