"use client";

// The playground's input: the values (as a form or as JSON, kept in sync), which fields were touched, and
// the errors to show — the schema's, once a field was touched or Run pressed, and the API's for the last Run
// until their field changes.
import * as React from "react";
import {
  errorsByField,
  validatorFor,
  type FieldErrors,
  type InputIssue,
  type InputValues,
  type JsonSchema,
} from "./input-schema";

export type InputView = "form" | "json";

const sameInput = (a: InputValues, b: InputValues) => JSON.stringify(a) === JSON.stringify(b);
const fieldOf = (issue: InputIssue) => issue.path.split(".")[0] ?? "";

export function usePlaygroundInput({
  inputSchema,
  initialInput,
  exampleInput,
  onEdit,
}: {
  inputSchema: JsonSchema;
  initialInput: InputValues | null;
  exampleInput: InputValues;
  /** Called on every edit (the last Run's outcome no longer describes this input). */
  onEdit: () => void;
}) {
  const validate = React.useMemo(() => validatorFor(inputSchema), [inputSchema]);
  const [values, setValues] = React.useState<InputValues>(() => initialInput ?? exampleInput);
  const [view, setViewState] = React.useState<InputView>("form");
  /** The JSON as typed while it does not parse (null: the view shows `values`). */
  const [jsonDraft, setJsonDraft] = React.useState<{ text: string; error: string } | null>(null);
  const [touched, setTouched] = React.useState<ReadonlySet<string>>(
    () => new Set(initialInput ? Object.keys(initialInput) : []),
  );
  const [attempted, setAttempted] = React.useState(false);
  /** Issues the API reported for the last Run, until their field changes. */
  const [serverIssues, setServerIssues] = React.useState<InputIssue[]>([]);

  const localIssues = React.useMemo(() => validate(values), [validate, values]);
  const errors: FieldErrors = React.useMemo(() => {
    const shown = localIssues.filter((i) => attempted || touched.has(fieldOf(i)) || i.path === "");
    return errorsByField([...shown, ...serverIssues]);
  }, [localIssues, serverIssues, attempted, touched]);

  function change(name: string, value: unknown) {
    setValues((current) => {
      const next = { ...current };
      if (value === undefined) delete next[name];
      else next[name] = value;
      return next;
    });
    setServerIssues((issues) => issues.filter((i) => fieldOf(i) !== name));
    onEdit();
  }

  function touch(name: string) {
    setTouched((t) => (t.has(name) ? t : new Set(t).add(name)));
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
    onEdit();
  }

  function setView(next: InputView) {
    setViewState(next);
    // Text that does not parse stays as typed; otherwise the view shows the values afresh.
    if (!jsonDraft?.error) setJsonDraft(null);
  }

  function resetToExample() {
    setValues(exampleInput);
    setJsonDraft(null);
    setTouched(new Set());
    setAttempted(false);
    setServerIssues([]);
    onEdit();
  }

  return {
    values,
    view,
    errors,
    jsonText: jsonDraft?.text ?? JSON.stringify(values, null, 2),
    jsonError: jsonDraft?.error || null,
    isExample: sameInput(values, exampleInput),
    /** Whether the input may be sent: it parses and the schema accepts it. */
    isValid: !jsonDraft?.error && localIssues.length === 0,
    /** From now on every problem shows, touched or not (Run was pressed). */
    markAttempted: () => setAttempted(true),
    attempted,
    showServerIssues: setServerIssues,
    change,
    touch,
    changeJson,
    setView,
    resetToExample,
  };
}

export type PlaygroundInput = ReturnType<typeof usePlaygroundInput>;
