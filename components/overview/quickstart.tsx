// Getting started: the steps from sign-in to calling the API, each ticked once done, and the first call
// from code. The overview shows it until every step is done.
import Link from "next/link";
import { BookOpenIcon, CheckIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Card, CardAction, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
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

export interface QuickstartStep {
  title: string;
  href: string;
  isDone: boolean;
}

export function Quickstart({ origin, steps }: { origin: string; steps: QuickstartStep[] }) {
  const command = firstJobCommand(origin);
  return (
    <Card>
      <CardHeader>
        <CardTitle>Get started</CardTitle>
        <CardDescription>
          Every service runs as a job on the execution network. The call answers <code className="font-mono">202</code>{" "}
          with the job; poll <code className="font-mono">GET /api/developers/jobs/:jobId</code> until it completes.
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
            <li key={step.title} className="flex items-center gap-3">
              <span
                className={cn(
                  "flex size-6 shrink-0 items-center justify-center rounded-full border text-xs font-medium tabular-nums",
                  step.isDone && "border-success bg-success text-background",
                )}
              >
                {step.isDone ? <CheckIcon className="size-3.5" aria-hidden /> : i + 1}
              </span>
              <Link
                href={step.href}
                className={cn("hover:underline", step.isDone && "text-muted-foreground line-through")}
              >
                {step.title}
              </Link>
              {step.isDone && <span className="text-xs text-success">Done</span>}
            </li>
          ))}
        </ol>
        <div className="relative overflow-hidden rounded-lg border bg-muted/50">
          <div className="flex items-center justify-between border-b px-3 py-1.5">
            <span className="font-mono text-xs text-muted-foreground">shell</span>
            <CopyButton value={command} variant="ghost" size="sm" label="Copy command" />
          </div>
          <pre
            tabIndex={0}
            className="overflow-x-auto p-4 font-mono text-xs leading-relaxed outline-none focus-visible:ring-[3px] focus-visible:ring-ring/50"
          >
            <code>{command}</code>
          </pre>
        </div>
      </CardContent>
    </Card>
  );
}
