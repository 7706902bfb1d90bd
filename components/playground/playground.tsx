"use client";

// The playground: a form built from the service's input schema with a JSON view kept in sync, checked
// before Run the way the API checks it, and Run through the dashboard's server (which holds the key).
import * as React from "react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { AlertCircleIcon, BracesIcon, ListIcon, Loader2Icon, PlayIcon, RotateCcwIcon } from "lucide-react";
import { ApiError } from "@/components/data/fetch-api";
import { runService } from "@/components/data/jobs";
import { ensureProfile, useProfile, useRememberProfile } from "@/components/data/profile";
import { queryKeys } from "@/components/data/query-keys";
import { AddCreditsLink } from "@/components/dashboard/add-credits";
import { runsLeftWarning } from "@/components/dashboard/balance";
import { formatCredits } from "@/components/dashboard/format";
import { ErrorState } from "@/components/dashboard/states";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { cn } from "@/components/ui/cn";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { NativeSelect } from "@/components/ui/native-select";
import type { Placement } from "@/components/data/types";
import { codeExamples } from "./code-examples";
import { InputField } from "./input-fields";
import {
  errorsByField,
  fieldsOf,
  validatorFor,
  type FieldErrors,
  type InputIssue,
  type InputValues,
  type JsonSchema,
} from "./input-schema";

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

const sameInput = (a: InputValues, b: InputValues) => JSON.stringify(a) === JSON.stringify(b);

function profileNameProblem(name: string): string | null {
  const trimmed = name.trim();
  if (!trimmed) return "Enter a name for your developer profile.";
  if (trimmed.length > 80) return "Use at most 80 characters.";
  return null;
}

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
  const queryClient = useQueryClient();
  const rememberProfile = useRememberProfile();
  const fields = React.useMemo(() => fieldsOf(inputSchema), [inputSchema]);
  const validate = React.useMemo(() => validatorFor(inputSchema), [inputSchema]);
  // Without a profile the first Run creates one (the page seeded the profile, so this never fetches).
  const needsProfile = useProfile().data === null;
  const [profileName, setProfileName] = React.useState(suggestedProfileName);

  const [values, setValues] = React.useState<InputValues>(() => initialInput ?? exampleInput);
  const [view, setView] = React.useState<"form" | "json">("form");
  /** The JSON as typed while it does not parse (null: the view shows `values`). */
  const [jsonDraft, setJsonDraft] = React.useState<{ text: string; error: string } | null>(null);
  const [touched, setTouched] = React.useState<ReadonlySet<string>>(
    () => new Set(initialInput ? Object.keys(initialInput) : []),
  );
  const [attempted, setAttempted] = React.useState(false);
  /** Issues the API reported for the last Run, until their field changes. */
  const [serverIssues, setServerIssues] = React.useState<InputIssue[]>([]);
  // One key per intent: kept across retries and double clicks, renewed once a Run has created its job.
  const [idempotencyKey, setIdempotencyKey] = React.useState(newIdempotencyKey);
  const [placement, setPlacement] = React.useState<Placement>("any");
  const cost = placement === "own" ? ownNodeCreditCost : creditCost;

  const localIssues = React.useMemo(() => validate(values), [validate, values]);
  const errors: FieldErrors = React.useMemo(() => {
    const shown = localIssues.filter((i) => attempted || touched.has(i.path.split(".")[0] ?? "") || i.path === "");
    return errorsByField([...shown, ...serverIssues]);
  }, [localIssues, serverIssues, attempted, touched]);

  const run = useMutation({
    mutationFn: async (input: InputValues) => {
      if (needsProfile) {
        rememberProfile(await ensureProfile(profileName.trim()));
      }
      return runService(serviceId, input, idempotencyKey, placement);
    },
    onSuccess: (job) => {
      setIdempotencyKey(newIdempotencyKey());
      void queryClient.invalidateQueries({ queryKey: queryKeys.allJobs });
      router.push(`/jobs/${job.jobId}`);
    },
    onError: (error) => {
      const issues = error instanceof ApiError ? error.details?.issues : undefined;
      if (Array.isArray(issues)) setServerIssues(issues as InputIssue[]);
    },
  });

  const shortOfCredits = balance < cost;
  const busy = run.isPending || run.isSuccess;
  const canRun = !blockedReason && !shortOfCredits && !busy;
  const profileNameError =
    needsProfile && (attempted || profileName !== suggestedProfileName) ? profileNameProblem(profileName) : null;
  const isExample = sameInput(values, exampleInput);
  const lowBalance = !shortOfCredits ? runsLeftWarning(balance, cost) : null;

  function change(name: string, value: unknown) {
    setValues((current) => {
      const next = { ...current };
      if (value === undefined) delete next[name];
      else next[name] = value;
      return next;
    });
    setServerIssues((issues) => issues.filter((i) => (i.path.split(".")[0] ?? "") !== name));
    run.reset();
  }

  function changeJson(text: string) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
        throw new Error("The input must be a JSON object.");
      setValues(parsed as InputValues);
      setTouched(new Set(Object.keys(parsed)));
      setServerIssues([]);
      setJsonDraft({ text, error: "" });
    } catch (error) {
      setJsonDraft({
        text,
        error: error instanceof SyntaxError ? `Not valid JSON: ${error.message}` : String((error as Error).message),
      });
    }
    run.reset();
  }

  function submit() {
    setAttempted(true);
    if (!canRun || jsonDraft?.error || localIssues.length > 0) return;
    if (needsProfile && profileNameProblem(profileName)) return;
    run.mutate(values);
  }

  function resetToExample() {
    setValues(exampleInput);
    setJsonDraft(null);
    setTouched(new Set());
    setAttempted(false);
    setServerIssues([]);
    run.reset();
  }

  const jsonText = jsonDraft?.text ?? JSON.stringify(values, null, 2);
  const formLevelErrors = errors[""] ?? [];
  const runError =
    run.error instanceof ApiError && !Array.isArray(run.error.details?.issues)
      ? run.error
      : run.error && !(run.error instanceof ApiError)
        ? run.error
        : null;
  const examples = React.useMemo(() => codeExamples(apiBaseUrl, serviceId, values), [apiBaseUrl, serviceId, values]);

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
              disabled={busy || isExample}
              onClick={resetToExample}
            >
              <RotateCcwIcon aria-hidden /> Reset to example
            </Button>
            <div className="flex rounded-md border p-0.5" role="group" aria-label="Input view">
              {(["form", "json"] as const).map((v) => (
                <Button
                  key={v}
                  type="button"
                  size="sm"
                  variant={view === v ? "secondary" : "ghost"}
                  aria-pressed={view === v}
                  className="h-7"
                  onClick={() => {
                    setView(v);
                    if (!jsonDraft?.error) setJsonDraft(null);
                  }}
                >
                  {v === "form" ? <ListIcon /> : <BracesIcon />}
                  {v === "form" ? "Form" : "JSON"}
                </Button>
              ))}
            </div>
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
            {blockedReason && (
              <Alert variant="warning">
                <AlertCircleIcon />
                <AlertTitle>This service cannot run</AlertTitle>
                <AlertDescription id="run-blocked-reason">
                  <p>{blockedReason}</p>
                </AlertDescription>
              </Alert>
            )}
            {!blockedReason && shortOfCredits && (
              <Alert variant="warning">
                <AlertCircleIcon />
                <AlertTitle>Not enough credits</AlertTitle>
                <AlertDescription id="run-blocked-reason">
                  <p>
                    A job costs {formatCredits(cost)}; your balance is {formatCredits(balance)}.
                  </p>
                  <AddCreditsLink className="mt-1" />
                </AlertDescription>
              </Alert>
            )}
            {view === "form" ? (
              fields.length === 0 ? (
                <p className="text-sm text-muted-foreground">
                  This service takes no input properties; switch to JSON to send an object.
                </p>
              ) : (
                fields.map((field) => (
                  <InputField
                    key={field.name}
                    field={field}
                    value={values[field.name]}
                    errors={errors[field.name]}
                    disabled={busy}
                    onChange={(value) => change(field.name, value)}
                    onBlur={() => setTouched((t) => (t.has(field.name) ? t : new Set(t).add(field.name)))}
                  />
                ))
              )
            ) : (
              <div className="grid gap-1.5">
                <label htmlFor="input-json" className="text-sm font-medium">
                  Input as JSON
                </label>
                <textarea
                  id="input-json"
                  spellCheck={false}
                  disabled={busy}
                  value={jsonText}
                  onChange={(e) => changeJson(e.target.value)}
                  aria-invalid={jsonDraft?.error || formLevelErrors.length ? true : undefined}
                  aria-describedby="input-json-errors"
                  className="min-h-64 w-full rounded-md border border-input bg-muted/30 p-3 font-mono text-xs leading-relaxed outline-none focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50 aria-invalid:border-destructive"
                />
                <ul id="input-json-errors" className="grid gap-0.5 text-sm text-destructive">
                  {jsonDraft?.error ? <li>{jsonDraft.error}</li> : null}
                  {Object.entries(errors).flatMap(([field, messages]) =>
                    messages.map((m) => <li key={`${field}:${m}`}>{field ? `${field}: ${m}` : m}</li>),
                  )}
                </ul>
              </div>
            )}
            {view === "form" && formLevelErrors.length > 0 && (
              <ul className="grid gap-0.5 text-sm text-destructive">
                {formLevelErrors.map((m) => (
                  <li key={m}>{m}</li>
                ))}
              </ul>
            )}

            {runError && <ErrorState title="The job was not created" error={runError} />}

            {needsProfile && !blockedReason && (
              <div className="grid gap-1.5 rounded-md border border-dashed p-3">
                <Label htmlFor="profile-name">Your developer name</Label>
                <Input
                  id="profile-name"
                  value={profileName}
                  maxLength={80}
                  disabled={busy}
                  autoComplete="name"
                  onChange={(e) => setProfileName(e.target.value)}
                  aria-invalid={profileNameError ? true : undefined}
                  aria-describedby="profile-name-hint"
                  className="sm:w-80"
                />
                <p
                  id="profile-name-hint"
                  className={cn("text-xs", profileNameError ? "text-destructive" : "text-muted-foreground")}
                >
                  {profileNameError ??
                    "Your first Run creates your developer profile with this name; change it any time on Profile."}
                </p>
              </div>
            )}

            <div className="flex flex-wrap items-center gap-x-4 gap-y-2 border-t pt-4">
              <div className="flex w-full items-center gap-2">
                <Label htmlFor="placement" className="text-sm text-muted-foreground">
                  Runs on
                </Label>
                <NativeSelect
                  id="placement"
                  value={placement}
                  onChange={(e) => setPlacement(e.target.value as Placement)}
                >
                  <option value="any">Any node</option>
                  <option value="own">Your own nodes ({formatCredits(ownNodeCreditCost)})</option>
                  <option value="network">The network&apos;s nodes</option>
                </NativeSelect>
              </div>
              <Button
                type="submit"
                disabled={!canRun}
                aria-describedby={blockedReason || shortOfCredits ? "run-blocked-reason" : "run-cost"}
                className="min-w-24"
              >
                {busy ? <Loader2Icon className="animate-spin" aria-hidden /> : <PlayIcon aria-hidden />}
                Run
                <kbd
                  aria-hidden
                  className="ml-1 hidden rounded border border-primary-foreground/30 px-1 font-sans text-[10px] opacity-80 sm:inline"
                >
                  Ctrl/⌘ ↵
                </kbd>
              </Button>
              <p id="run-cost" className="text-sm text-muted-foreground">
                <span className="font-medium text-foreground tabular-nums">{formatCredits(cost)}</span> per job ·
                balance{" "}
                <span className={cn("tabular-nums", (shortOfCredits || lowBalance) && "text-destructive")}>
                  {formatCredits(balance)}
                </span>
              </p>
              {lowBalance && (
                <p className="flex w-full flex-wrap items-center gap-x-2 text-sm text-muted-foreground">
                  {lowBalance} <AddCreditsLink />
                </p>
              )}
              <span className="sr-only" aria-live="polite">
                {run.isPending
                  ? needsProfile
                    ? "Creating your profile and submitting the job…"
                    : "Submitting the job…"
                  : run.isSuccess
                    ? "Job created; opening it."
                    : ""}
              </span>
            </div>
          </form>
        </CardContent>
      </Card>

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
    </div>
  );
}

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
