"use client";

// The playground: a form built from the service's input schema with a JSON view kept in sync, checked
// before Run the way the API checks it, and Run through the dashboard's server (which holds the key).
import * as React from "react";
import { useRouter } from "next/navigation";
import { BracesIcon, ListIcon, RotateCcwIcon } from "lucide-react";
import { ApiError } from "@/components/data/fetch-api";
import { useProfile } from "@/components/data/profile";
import { useRunService } from "@/components/data/services";
import { runsLeftWarning } from "@/components/dashboard/balance";
import { ErrorState } from "@/components/dashboard/states";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { CodePanel } from "./code-panel";
import { InputEditor } from "./input-editor";
import { fieldsOf, type InputIssue, type InputValues, type JsonSchema } from "./input-schema";
import { ProfileNameField, profileNameProblem } from "./profile-name-field";
import type { Placement } from "@/components/data/types";
import { OwnNodesNotice } from "./own-nodes-notice";
import { PlacementField } from "./placement-field";
import { RunBar, RunBlockedAlert } from "./run-controls";
import { usePlaygroundInput, type InputView } from "./use-playground-input";

export interface PlaygroundProps {
  serviceId: string;
  inputSchema: JsonSchema;
  creditCost: number;
  /** What a job placed on the developer's own nodes costs (CONTRACT §12). */
  ownNodeCreditCost?: number;
  balance: number;
  /** Why Run is impossible (the service is disabled), or null. */
  blockedReason: string | null;
  /** The input to start from (e.g. an earlier job's, for "Run again"); the example when null. */
  initialInput: InputValues | null;
  /** The service's example input: the form starts from it and "Reset to example" restores it. */
  exampleInput: InputValues;
  /** The name the profile gets if the first Run creates it (editable here, and later on Profile). */
  suggestedProfileName: string;
  /** Where the examples send their request. */
  apiBaseUrl: string;
}

/** A fresh Idempotency-Key (random 128 bits), also outside secure contexts where randomUUID is missing. */
function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `dash_${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** The failure to show above Run: input issues show at their fields instead. */
const runFailure = (error: Error | null) =>
  error instanceof ApiError && Array.isArray(error.details?.issues) ? null : error;

export function Playground({
  serviceId,
  inputSchema,
  creditCost,
  ownNodeCreditCost = creditCost,
  balance,
  blockedReason,
  initialInput,
  exampleInput,
  suggestedProfileName,
  apiBaseUrl,
}: PlaygroundProps) {
  const router = useRouter();
  const fields = React.useMemo(() => fieldsOf(inputSchema), [inputSchema]);
  // Without a profile the first Run creates one (the page seeded the profile, so this never fetches).
  const needsProfile = useProfile().data === null;
  const [profileName, setProfileName] = React.useState(suggestedProfileName);
  // One key per intent: kept across retries and double clicks, renewed once a Run has created its job.
  const [idempotencyKey, setIdempotencyKey] = React.useState(newIdempotencyKey);
  const run = useRunService(serviceId);
  const [placement, setPlacement] = React.useState<Placement>("any");
  const cost = placement === "own" ? ownNodeCreditCost : creditCost;
  const input = usePlaygroundInput({ inputSchema, initialInput, exampleInput, onEdit: run.reset });

  const shortOfCredits = balance < cost;
  const busy = run.isPending || run.isSuccess;
  const canRun = !blockedReason && !shortOfCredits && !busy;
  const profileNameError =
    needsProfile && (input.attempted || profileName !== suggestedProfileName) ? profileNameProblem(profileName) : null;

  function submit() {
    input.markAttempted();
    if (!canRun || !input.isValid) return;
    if (needsProfile && profileNameProblem(profileName)) return;
    run.mutate(
      {
        input: input.values,
        idempotencyKey,
        newProfileName: needsProfile ? profileName.trim() : undefined,
        placement,
      },
      {
        onSuccess: (job) => {
          setIdempotencyKey(newIdempotencyKey());
          router.push(`/jobs/${job.jobId}`);
        },
        onError: (error) => {
          const issues = error instanceof ApiError ? error.details?.issues : undefined;
          if (Array.isArray(issues)) input.showServerIssues(issues as InputIssue[]);
        },
      },
    );
  }

  const failure = runFailure(run.error);
  const status = run.isPending
    ? needsProfile
      ? "Creating your profile and submitting the job…"
      : "Submitting the job…"
    : run.isSuccess
      ? "Job created; opening it."
      : "";

  return (
    <div className="grid grid-cols-1 items-start gap-6 lg:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
      <Card className="gap-4">
        <CardHeader className="flex flex-row flex-wrap items-center justify-between gap-3">
          <CardTitle className="text-base">Playground</CardTitle>
          <div className="flex flex-wrap items-center gap-2">
            <Button
              type="button"
              size="sm"
              variant="ghost"
              className="h-8"
              disabled={busy || input.isExample}
              onClick={input.resetToExample}
            >
              <RotateCcwIcon aria-hidden /> Reset to example
            </Button>
            <ViewSwitch view={input.view} onChange={input.setView} />
          </div>
        </CardHeader>
        <CardContent>
          <form
            noValidate
            className="grid gap-5"
            onSubmit={(e) => {
              e.preventDefault();
              submit();
            }}
            onKeyDown={(e) => {
              if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) {
                e.preventDefault();
                submit();
              }
            }}
          >
            <RunBlockedAlert blockedReason={blockedReason} creditCost={cost} balance={balance} />
            <InputEditor input={input} fields={fields} disabled={busy} />
            {failure && <ErrorState title="The job was not created" error={failure} />}
            {needsProfile && !blockedReason && (
              <ProfileNameField
                value={profileName}
                error={profileNameError}
                disabled={busy}
                onChange={setProfileName}
              />
            )}
            <PlacementField
              value={placement}
              ownNodeCreditCost={ownNodeCreditCost}
              disabled={busy}
              onChange={setPlacement}
            />
            {placement === "own" && <OwnNodesNotice serviceId={serviceId} />}
            <RunBar
              canRun={canRun}
              isBlocked={Boolean(blockedReason) || shortOfCredits}
              busy={busy}
              creditCost={cost}
              balance={balance}
              lowBalance={shortOfCredits ? null : runsLeftWarning(balance, cost)}
              status={status}
            />
          </form>
        </CardContent>
      </Card>
      <CodePanel apiBaseUrl={apiBaseUrl} serviceId={serviceId} input={input.values} />
    </div>
  );
}

function ViewSwitch({ view, onChange }: { view: InputView; onChange: (view: InputView) => void }) {
  return (
    <div className="flex rounded-md border p-0.5" role="group" aria-label="Input view">
      {(["form", "json"] as const).map((v) => (
        <Button
          key={v}
          type="button"
          size="sm"
          variant={view === v ? "secondary" : "ghost"}
          aria-pressed={view === v}
          className="h-7"
          onClick={() => onChange(v)}
        >
          {v === "form" ? <ListIcon /> : <BracesIcon />}
          {v === "form" ? "Form" : "JSON"}
        </Button>
      ))}
    </div>
  );
}
