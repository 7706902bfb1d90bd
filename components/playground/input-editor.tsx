"use client";

// The playground's input, as a form built from the schema or as JSON, with each field's errors beside it.
import { InputField } from "./input-fields";
import type { FieldSpec } from "./input-schema";
import type { PlaygroundInput } from "./use-playground-input";

export function InputEditor({
  input,
  fields,
  disabled,
}: {
  input: PlaygroundInput;
  fields: FieldSpec[];
  disabled: boolean;
}) {
  const { values, errors } = input;
  const formLevelErrors = errors[""] ?? [];

  if (input.view === "json") {
    return (
      <div className="grid gap-1.5">
        <label htmlFor="input-json" className="text-sm font-medium">
          Input as JSON
        </label>
        <textarea
          id="input-json"
          spellCheck={false}
          disabled={disabled}
          value={input.jsonText}
          onChange={(e) => input.changeJson(e.target.value)}
          aria-invalid={input.jsonError || formLevelErrors.length ? true : undefined}
          aria-describedby="input-json-errors"
          className="min-h-64 w-full rounded-md border border-input bg-muted/30 p-3 font-mono text-xs leading-relaxed outline-none focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50 aria-invalid:border-destructive"
        />
        <ul id="input-json-errors" className="grid gap-0.5 text-sm text-destructive">
          {input.jsonError ? <li>{input.jsonError}</li> : null}
          {Object.entries(errors).flatMap(([field, messages]) =>
            messages.map((m) => <li key={`${field}:${m}`}>{field ? `${field}: ${m}` : m}</li>),
          )}
        </ul>
      </div>
    );
  }

  return (
    <>
      {fields.length === 0 ? (
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
            disabled={disabled}
            onChange={(value) => input.change(field.name, value)}
            onBlur={() => input.touch(field.name)}
          />
        ))
      )}
      {formLevelErrors.length > 0 && (
        <ul className="grid gap-0.5 text-sm text-destructive">
          {formLevelErrors.map((m) => (
            <li key={m}>{m}</li>
          ))}
        </ul>
      )}
    </>
  );
}
