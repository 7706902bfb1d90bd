// The catalog's cards, rendered on the server with the page (the catalog changes only when an operator
// reconfigures the server).
import Link from "next/link";
import { BoxesIcon } from "lucide-react";
import type { ExecutionService } from "@/components/data/types";
import { creditNoun, formatNumber } from "@/components/dashboard/format";
import { EmptyState } from "@/components/dashboard/states";
import { Badge } from "@/components/ui/badge";
import { Card, CardAction, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";

function ServiceCard({ service }: { service: ExecutionService }) {
  const isActive = service.status === "active";
  return (
    <Card
      className="relative gap-4 transition-colors hover:border-ring/60"
      aria-labelledby={`service-${service.serviceId}`}
    >
      <CardHeader>
        <CardTitle id={`service-${service.serviceId}`}>
          {/* The card's one link, stretched over the card so the whole card opens the service's page. */}
          <Link
            href={`/services/${service.serviceId}`}
            className="rounded-sm outline-none after:absolute after:inset-0 after:rounded-xl hover:underline focus-visible:ring-[3px] focus-visible:ring-ring/50"
          >
            {service.name}
          </Link>
        </CardTitle>
        <CardDescription className="font-mono text-xs">{service.serviceId}</CardDescription>
        <CardAction>
          <Badge variant={isActive ? "success" : "muted"}>{isActive ? "Active" : "Disabled"}</Badge>
        </CardAction>
      </CardHeader>
      <CardContent className="grid min-w-0 grid-cols-1 gap-4">
        <p className="text-sm text-muted-foreground">{service.description}</p>
        <div className="grid grid-cols-1 gap-3">
          <p className="text-sm">
            <span className="font-semibold tabular-nums">{formatNumber(service.creditCost)}</span>{" "}
            <span className="text-muted-foreground">{creditNoun(service.creditCost)} per job</span>
          </p>
          <details className="group relative z-10 min-w-0 overflow-hidden rounded-md border bg-muted/40 text-sm">
            <summary className="cursor-pointer px-3 py-2 text-xs font-medium text-muted-foreground select-none group-open:border-b">
              Input schema
            </summary>
            <pre className="max-h-72 overflow-auto p-3 font-mono text-xs leading-relaxed">
              {JSON.stringify(service.inputSchema, null, 2)}
            </pre>
          </details>
        </div>
      </CardContent>
    </Card>
  );
}

export function ServicesCatalog({ services }: { services: ExecutionService[] }) {
  if (services.length === 0) return <EmptyState icon={BoxesIcon} title="No services are available yet" />;
  return (
    <div className="grid grid-cols-1 items-start gap-4 md:grid-cols-2 xl:grid-cols-3">
      {services.map((service) => (
        <ServiceCard key={service.serviceId} service={service} />
      ))}
    </div>
  );
}
