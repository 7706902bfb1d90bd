// The home page for a signed-out visitor: what the product is, its services, the API in one call, and the
// way in (a wallet sign-in, with starter credits).
import Link from "next/link";
import { ArrowRightIcon, ActivityIcon, KeyRoundIcon, WalletIcon } from "lucide-react";
import type { ExecutionService } from "@/components/data/types";
import { Logo } from "@/components/dashboard/logo";
import { formatCredits } from "@/components/dashboard/format";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";

function apiSnippet(origin: string) {
  return [
    `curl -X POST ${origin}/api/marketplace/services/text-sentiment/execute \\`,
    `  -H "x-api-key: $EXECUTION_NETWORK_API_KEY" \\`,
    `  -H "content-type: application/json" \\`,
    `  -d '{"input": {"text": "The new release is fast and delightful."}}'`,
    `# → 202 {"jobId": "…", "status": "queued", …}; follow it at /api/developers/jobs/:jobId`,
  ].join("\n");
}

const steps = [
  {
    icon: WalletIcon,
    title: "Sign in with a wallet",
    text: "No password and no gas: you sign one message. Your account starts with credits.",
  },
  {
    icon: ActivityIcon,
    title: "Run a service",
    text: "Each service's page has a playground prefilled with an example: press Run and watch the job live.",
  },
  {
    icon: KeyRoundIcon,
    title: "Call the API",
    text: "Create a key, copy the generated snippet, and submit jobs from your code with the client library.",
  },
];

export function LandingPage({
  services,
  origin,
  starterCredits,
}: {
  services: ExecutionService[];
  origin: string;
  starterCredits: number;
}) {
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="border-b">
        <div className="mx-auto flex h-14 w-full max-w-5xl items-center justify-between gap-3 px-4 sm:px-8">
          <Logo />
          <Button asChild size="sm">
            <Link href="/sign-in">Sign in</Link>
          </Button>
        </div>
      </header>
      <main className="mx-auto flex w-full max-w-5xl flex-col gap-14 px-4 py-12 sm:px-8 sm:py-16">
        <section className="grid max-w-2xl gap-4">
          <h1 className="text-3xl font-semibold tracking-tight sm:text-4xl">Run AI workloads with one API call</h1>
          <p className="text-lg text-muted-foreground">
            Execution Network runs each request as a job on a network of execution nodes: sentiment, summaries, language
            detection, token counts, OCR and text generation. Every job is followed live, billed in credits, and
            refunded if it fails.
          </p>
          <div className="flex flex-wrap items-center gap-3">
            <Button asChild size="lg">
              <Link href="/sign-in">
                Sign in and try it <ArrowRightIcon aria-hidden />
              </Link>
            </Button>
            {starterCredits > 0 && (
              <p className="text-sm text-muted-foreground">New accounts start with {formatCredits(starterCredits)}.</p>
            )}
          </div>
        </section>

        <section aria-labelledby="how-heading" className="grid gap-4">
          <h2 id="how-heading" className="text-xl font-semibold tracking-tight">
            From sign-in to a result in a minute
          </h2>
          <ol className="grid grid-cols-1 gap-4 md:grid-cols-3">
            {steps.map(({ icon: Icon, title, text }) => (
              <li key={title} className="grid content-start gap-2 rounded-lg border p-4">
                <Icon className="size-5 text-muted-foreground" aria-hidden />
                <p className="font-medium">{title}</p>
                <p className="text-sm text-muted-foreground">{text}</p>
              </li>
            ))}
          </ol>
        </section>

        <section aria-labelledby="api-heading" className="grid grid-cols-1 gap-4">
          <h2 id="api-heading" className="text-xl font-semibold tracking-tight">
            The API in one call
          </h2>
          <pre
            tabIndex={0}
            className="overflow-x-auto rounded-lg border bg-muted/50 p-4 font-mono text-xs leading-relaxed"
          >
            <code>{apiSnippet(origin)}</code>
          </pre>
          <p className="text-sm text-muted-foreground">
            The full reference is the{" "}
            <a href="/api/openapi.json" className="underline underline-offset-4">
              OpenAPI document
            </a>
            ; the TypeScript client <code className="font-mono">@execution-network/client</code> wraps it with retries,
            idempotency and typed errors.
          </p>
        </section>

        <section aria-labelledby="services-heading" className="grid gap-4">
          <h2 id="services-heading" className="text-xl font-semibold tracking-tight">
            Services
          </h2>
          <ul className="grid grid-cols-1 gap-4 md:grid-cols-2 lg:grid-cols-3">
            {services.map((service) => (
              <li key={service.serviceId}>
                <Card className="h-full gap-3">
                  <CardHeader>
                    <CardTitle className="text-base">
                      <h3>{service.name}</h3>
                    </CardTitle>
                    <CardDescription className="font-mono text-xs">{service.serviceId}</CardDescription>
                  </CardHeader>
                  <CardContent className="grid gap-2 text-sm">
                    <p className="text-muted-foreground">{service.description}</p>
                    <p>
                      {formatCredits(service.creditCost)} per job
                      {service.status === "disabled" && " · not enabled on this server"}
                    </p>
                  </CardContent>
                </Card>
              </li>
            ))}
          </ul>
        </section>
      </main>
      <footer className="border-t">
        <div className="mx-auto flex w-full max-w-5xl flex-wrap items-center justify-between gap-3 px-4 py-6 text-sm text-muted-foreground sm:px-8">
          <span>Execution Network</span>
          <Link href="/sign-in" className="underline underline-offset-4">
            Sign in
          </Link>
        </div>
      </footer>
    </div>
  );
}
