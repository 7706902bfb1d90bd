// A service's page: what it does and costs, its input schema, examples, and the playground. Read on the
// server: the catalog, the balance, the example input, and (for "Run again") the developer's own earlier job.
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { ArrowLeftIcon } from "lucide-react";
import { requireSession } from "@/lib/http/page-session";
import { findProfile } from "@/lib/domain/accounts";
import { formatCredits, suggestedProfileName } from "@/components/dashboard/format";
import { PageHeader } from "@/components/dashboard/page-header";
import { Playground } from "@/components/playground/playground";
import { WithProfile } from "@/components/profile/with-profile";
import { InputSchemaTable } from "@/components/services/input-schema-table";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { catalog, isServiceId } from "@/lib/domain/catalog";
import { getCreditBalance } from "@/lib/domain/credits";
import { DomainError } from "@/lib/domain/errors";
import { getJob } from "@/lib/engine/job-views";
import { exampleInput } from "@/lib/domain/service-examples";
import { listServices } from "@/lib/domain/services";
import { appOrigins, env, x402Config } from "@/lib/env";
import { perCallPriceOf } from "@/lib/payments/x402/offer";

interface Props {
  params: Promise<{ serviceId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

async function findService(serviceId: string) {
  return (await listServices()).find((s) => s.serviceId === serviceId);
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const service = await findService((await params).serviceId);
  return { title: service?.name ?? "Service not found" };
}

const isNotFound = (error: unknown) => error instanceof DomainError && error.code.endsWith("NOT_FOUND");

/** The input of the developer's own job of this service, or null (someone else's job seeds nothing). */
async function seedInput(accountId: string, serviceId: string, from: string | string[] | undefined) {
  if (typeof from !== "string") return null;
  try {
    const job = await getJob(accountId, from);
    return job.serviceId === serviceId ? job.input : null;
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

export default async function ServicePage({ params, searchParams }: Props) {
  const session = await requireSession();
  const { serviceId } = await params;
  const service = await findService(serviceId);
  if (!service) notFound();

  const [balance, example, initialInput, profile, perCall] = await Promise.all([
    getCreditBalance(session.accountId).then((b) => b.balance),
    isServiceId(serviceId) ? exampleInput(serviceId) : {},
    seedInput(session.accountId, serviceId, (await searchParams).from),
    findProfile(session.accountId),
    // What the 402 offer asks a caller without an account (x402, CONTRACT §15), by the offer's own rule.
    perCallPriceOf(x402Config(), service.creditCost),
  ]);
  const isActive = service.status === "active";
  const blockedReason = !isActive
    ? (catalog.find((c) => c.serviceId === serviceId)?.disabledReason ?? "The operator has disabled this service.")
    : null;
  const apiBaseUrl = env().EXECUTION_API_URL ?? appOrigins()[0];

  return (
    <>
      <Link
        href="/services"
        className="-mb-3 inline-flex w-fit items-center gap-1 text-sm text-muted-foreground hover:text-foreground"
      >
        <ArrowLeftIcon className="size-4" /> All services
      </Link>
      <PageHeader
        title={service.name}
        description={service.description}
        actions={
          <>
            <Badge variant={isActive ? "success" : "muted"}>{isActive ? "Active" : "Disabled"}</Badge>
            <Badge variant="outline" className="tabular-nums">
              {formatCredits(service.creditCost)} per job
            </Badge>
            <Badge variant="outline" className="tabular-nums" title="A job placed on your own nodes">
              {formatCredits(service.ownNodeCreditCost)} on your own nodes
            </Badge>
            {perCall && (
              <Badge
                variant="outline"
                className="tabular-nums"
                title="A caller with a wallet and no account pays this per call with x402, in place of credits"
                data-testid="per-call-price"
              >
                {perCall.text} per call (x402)
              </Badge>
            )}
          </>
        }
      />
      <p className="-mt-3 font-mono text-xs text-muted-foreground">
        POST /api/marketplace/services/{service.serviceId}/execute
      </p>

      {initialInput && (
        <p className="text-sm text-muted-foreground">
          The form holds the input of job <span className="font-mono">{String((await searchParams).from)}</span>; edit
          it before you run.
        </p>
      )}

      <WithProfile profile={profile}>
        <Playground
          serviceId={service.serviceId}
          inputSchema={service.inputSchema}
          creditCost={service.creditCost}
          ownNodeCreditCost={service.ownNodeCreditCost}
          balance={balance}
          blockedReason={blockedReason}
          initialInput={initialInput}
          exampleInput={example}
          suggestedProfileName={suggestedProfileName(session.address)}
          apiBaseUrl={apiBaseUrl}
        />
      </WithProfile>

      <Card className="gap-4">
        <CardHeader>
          <CardTitle className="text-base">Input</CardTitle>
        </CardHeader>
        <CardContent>
          <InputSchemaTable schema={service.inputSchema} />
        </CardContent>
      </Card>
      <Card className="gap-3">
        <CardHeader>
          <CardTitle className="text-base">Output and billing</CardTitle>
        </CardHeader>
        <CardContent className="grid gap-2 text-sm text-muted-foreground">
          <p>
            Submission answers <span className="font-mono">202</span> at once with a queued job; the result arrives in
            the job&apos;s <span className="font-mono">result</span> (<span className="font-mono">summary</span> and
            structured <span className="font-mono">output</span>) when it completes — follow it on the job page, by
            polling, or over its event stream.
          </p>
          <p>
            {formatCredits(service.creditCost)} {service.creditCost === 1 ? "is" : "are"} charged when the job is
            created and refunded if it fails. Input the service refuses (422) costs nothing.
          </p>
          {perCall && (
            <p>
              Without an account, a caller with a wallet pays {perCall.text} for one call with x402: the execute answers{" "}
              <span className="font-mono">402</span> with the offer, and the same request with the signed payment runs
              the job.
            </p>
          )}
        </CardContent>
      </Card>
    </>
  );
}
