"use client";

// A completed job's result, rendered for its service (sentiment on a −1…1 bar, summary sentences, language
// with confidence, tokens with the model, OCR text with confidence, generated text), with a Raw JSON toggle.
// The region is named "Result" (CONTRACT §9).
import * as React from "react";
import type { ExecutionJob } from "@/components/data/types";
import { formatNumber } from "@/components/dashboard/format";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Progress } from "@/components/ui/progress";

type Output = Record<string, unknown>;
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);
const str = (v: unknown) => (typeof v === "string" ? v : null);
const count = (v: unknown) => (Array.isArray(v) ? v.length : (num(v) ?? "—"));
const percent = (fraction: number) => `${Math.round(fraction * 100)} %`;

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="grid gap-1">
      <dt className="text-xs text-muted-foreground">{label}</dt>
      <dd className="text-sm">{children}</dd>
    </div>
  );
}

function Sentiment({ output }: { output: Output }) {
  const score = num(output.score) ?? 0;
  const label = str(output.label) ?? "";
  // −1 … 1 mapped onto the bar's width; the marker sits at the score.
  const position = ((Math.max(-1, Math.min(1, score)) + 1) / 2) * 100;
  return (
    <div className="grid gap-4">
      <dl>
        <Field label="Sentiment">
          <span className="text-lg font-semibold capitalize">{label}</span>{" "}
          <span className="font-mono tabular-nums">{score.toFixed(2)}</span>
        </Field>
      </dl>
      <div
        role="meter"
        aria-label="Sentiment score from −1 to 1"
        aria-valuemin={-1}
        aria-valuemax={1}
        aria-valuenow={score}
        aria-valuetext={`${score.toFixed(2)}, ${label}`}
        className="grid gap-1"
      >
        <div className="relative h-2 rounded-full bg-gradient-to-r from-destructive/60 via-muted to-success/60">
          <span
            className="absolute top-1/2 size-3.5 -translate-x-1/2 -translate-y-1/2 rounded-full border-2 border-background bg-foreground"
            style={{ left: `${position}%` }}
          />
        </div>
        <div className="flex justify-between font-mono text-xs text-muted-foreground">
          <span>−1 negative</span>
          <span>0</span>
          <span>positive 1</span>
        </div>
      </div>
    </div>
  );
}

function Summary({ output }: { output: Output }) {
  const sentences = Array.isArray(output.sentences) ? (output.sentences as { text?: unknown; index?: unknown }[]) : [];
  return (
    <dl className="grid gap-4">
      <Field label={`Summary · ${sentences.length} of ${num(output.sentenceCount) ?? "?"} sentences`}>
        <ol className="grid list-decimal gap-1 pl-5">
          {sentences.map((s, i) => (
            <li key={i}>
              {str(s.text)}
              {num(s.index) !== null && (
                <span className="ml-2 text-xs text-muted-foreground">sentence {(num(s.index) ?? 0) + 1}</span>
              )}
            </li>
          ))}
        </ol>
      </Field>
    </dl>
  );
}

function Language({ output }: { output: Output }) {
  const confidence = num(output.confidence) ?? 0;
  const alternatives = Array.isArray(output.alternatives) ? (output.alternatives as Output[]) : [];
  return (
    <dl className="grid gap-4 sm:grid-cols-2">
      <Field label="Language">
        <span className="text-lg font-semibold">{str(output.name)}</span>{" "}
        <span className="font-mono text-muted-foreground">{str(output.iso6391) ?? str(output.iso6393)}</span>
      </Field>
      <Field label={`Confidence ${percent(confidence)}`}>
        <Progress value={confidence * 100} aria-label="Confidence" />
      </Field>
      {alternatives.length > 0 && (
        <Field label="Alternatives">
          {alternatives.map((a) => `${str(a.name)} (${percent(num(a.confidence) ?? 0)})`).join(", ")}
        </Field>
      )}
    </dl>
  );
}

function Tokens({ output }: { output: Output }) {
  return (
    <dl className="grid gap-4 sm:grid-cols-3">
      <Field label="Tokens">
        <span className="text-lg font-semibold tabular-nums">{formatNumber(num(output.tokens) ?? 0)}</span>
      </Field>
      <Field label="Model">
        <span className="font-mono">{str(output.model)}</span>{" "}
        <span className="text-muted-foreground">({str(output.encoding)})</span>
      </Field>
      <Field label="Characters">{formatNumber(num(output.characters) ?? 0)}</Field>
    </dl>
  );
}

function TextBlock({ label, text }: { label: string; text: string }) {
  return (
    <div className="grid grid-cols-1 gap-2">
      <div className="flex items-center justify-between gap-2">
        <span className="text-xs text-muted-foreground">{label}</span>
        <CopyButton value={text} label="Copy text" />
      </div>
      <pre
        tabIndex={0}
        className="max-h-96 overflow-auto rounded-md bg-muted p-3 font-sans text-sm whitespace-pre-wrap"
      >
        {text}
      </pre>
    </div>
  );
}

function Ocr({ output }: { output: Output }) {
  const confidence = num(output.confidence);
  return (
    <div className="grid gap-4">
      <dl className="grid gap-4 sm:grid-cols-3">
        <Field label="Confidence">{confidence === null ? "—" : percent(confidence)}</Field>
        <Field label="Lines · words">
          {count(output.lines)} · {count(output.words)}
        </Field>
        <Field label="Image">
          {str(output.format)} {num(output.width)}×{num(output.height)}
        </Field>
      </dl>
      <TextBlock label="Recognised text" text={str(output.text) ?? ""} />
    </div>
  );
}

function Generated({ output }: { output: Output }) {
  return (
    <div className="grid gap-4">
      <dl className="grid gap-4 sm:grid-cols-3">
        <Field label="Model">
          <span className="font-mono">{str(output.model)}</span>
        </Field>
        <Field label="Format">{str(output.format)}</Field>
        <Field label="Finish reason">{str(output.finishReason) ?? "—"}</Field>
      </dl>
      <TextBlock label="Generated text" text={str(output.text) ?? ""} />
    </div>
  );
}

const renderers: Record<string, (props: { output: Output }) => React.ReactNode> = {
  "text-sentiment": Sentiment,
  "text-summarize": Summary,
  "language-detect": Language,
  "token-count": Tokens,
  "image-ocr": Ocr,
  "text-generate": Generated,
};

export function JobResult({ job }: { job: ExecutionJob }) {
  const [showRaw, setShowRaw] = React.useState(false);
  if (!job.result) return null;
  const Render = renderers[job.serviceId];
  const raw = JSON.stringify(job.result, null, 2);
  return (
    <section aria-label="Result" className="grid grid-cols-1 gap-4 rounded-xl border bg-card p-5">
      <div className="flex flex-wrap items-center gap-2">
        <h2 className="mr-auto text-base font-semibold">Result</h2>
        <Button variant="outline" size="sm" aria-pressed={showRaw} onClick={() => setShowRaw((v) => !v)}>
          Raw JSON
        </Button>
        <CopyButton value={raw} label="Copy JSON" />
      </div>
      <p className="text-sm">{job.result.summary}</p>
      {showRaw || !Render ? (
        <pre tabIndex={0} className="max-h-96 overflow-auto rounded-md bg-muted p-3 font-mono text-xs">
          {raw}
        </pre>
      ) : (
        <Render output={job.result.output} />
      )}
    </section>
  );
}
