"use client";

// One widget per property of the input schema, labelled with the property's name (CONTRACT §9).
import * as React from "react";
import { ImageIcon, XIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { NativeSelect } from "@/components/ui/native-select";
import { constraintsOf, type FieldSpec } from "./input-schema";

export interface FieldProps {
  field: FieldSpec;
  value: unknown;
  errors: string[] | undefined;
  disabled?: boolean;
  /** `undefined` takes the property out of the input. */
  onChange(value: unknown): void;
  onBlur(): void;
}

const textareaClass =
  "min-h-28 w-full rounded-md border border-input bg-transparent px-3 py-2 text-sm shadow-xs outline-none placeholder:text-muted-foreground focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50 disabled:cursor-not-allowed disabled:opacity-50 aria-invalid:border-destructive";

function imageSource(value: string): string {
  if (value.startsWith("data:")) return value;
  // Raw base64 (e.g. seeded from an earlier job): JPEG data starts with /9j/, PNG with iVBOR.
  return `data:${value.startsWith("/9j/") ? "image/jpeg" : "image/png"};base64,${value}`;
}

function ImagePicker({
  field,
  value,
  errors,
  disabled,
  onChange,
  onBlur,
  describedBy,
}: FieldProps & { describedBy: string }) {
  const inputRef = React.useRef<HTMLInputElement>(null);
  const [fileName, setFileName] = React.useState<string | null>(null);
  const [readError, setReadError] = React.useState<string | null>(null);
  const current = typeof value === "string" && value.length > 0 ? value : null;

  function pick(file: File | undefined) {
    setReadError(null);
    if (!file) return;
    const reader = new FileReader();
    reader.onload = () => {
      setFileName(`${file.name} · ${(file.size / 1024).toFixed(file.size < 10_240 ? 1 : 0)} KiB`);
      onChange(String(reader.result));
      onBlur();
    };
    reader.onerror = () => setReadError("The file could not be read.");
    reader.readAsDataURL(file);
  }

  return (
    <div className="grid gap-2">
      <Input
        ref={inputRef}
        id={`field-${field.name}`}
        type="file"
        accept="image/png,image/jpeg"
        disabled={disabled}
        aria-invalid={errors?.length ? true : undefined}
        aria-describedby={describedBy}
        onChange={(e) => pick(e.target.files?.[0])}
        className="cursor-pointer"
      />
      {readError && <p className="text-sm text-destructive">{readError}</p>}
      {current ? (
        <div className="flex items-start gap-3 rounded-md border bg-muted/40 p-2">
          {/* eslint-disable-next-line @next/next/no-img-element -- a local data: URL, nothing to optimise */}
          <img
            src={imageSource(current)}
            alt={`Preview of the ${field.name} to send`}
            className="max-h-40 max-w-[60%] rounded object-contain"
          />
          <div className="grid min-w-0 gap-1 text-xs text-muted-foreground">
            <span className="truncate" title={fileName ?? undefined}>
              {fileName ?? "The image in the input"}
            </span>
            <span>Sent as base64 ({current.length.toLocaleString("en")} characters)</span>
            <Button
              type="button"
              size="sm"
              variant="ghost"
              className="justify-self-start"
              onClick={() => {
                onChange(undefined);
                setFileName(null);
                if (inputRef.current) inputRef.current.value = "";
              }}
            >
              <XIcon /> Remove image
            </Button>
          </div>
        </div>
      ) : (
        <p className="flex items-center gap-2 text-xs text-muted-foreground">
          <ImageIcon className="size-3.5" /> PNG or JPEG; it is read in your browser and sent as base64.
        </p>
      )}
    </div>
  );
}

export function InputField(props: FieldProps) {
  const { field, value, errors, disabled, onChange, onBlur } = props;
  const id = `field-${field.name}`;
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hintId, errors?.length ? errorId : null].filter(Boolean).join(" ");
  const invalid = errors?.length ? true : undefined;
  const constraints = constraintsOf(field);
  const common = {
    id,
    disabled,
    onBlur,
    "aria-invalid": invalid,
    "aria-describedby": describedBy,
    "aria-required": field.required || undefined,
  };

  let control: React.ReactNode;
  switch (field.kind) {
    case "textarea":
      control = (
        <textarea
          {...common}
          className={textareaClass}
          value={typeof value === "string" ? value : ""}
          maxLength={field.maxLength}
          onChange={(e) => onChange(e.target.value === "" && !field.required ? undefined : e.target.value)}
        />
      );
      break;
    case "text":
      control = (
        <Input
          {...common}
          value={typeof value === "string" ? value : ""}
          onChange={(e) => onChange(e.target.value === "" && !field.required ? undefined : e.target.value)}
        />
      );
      break;
    case "select":
      control = (
        <NativeSelect
          {...common}
          className="w-full sm:w-72"
          value={typeof value === "string" ? value : ""}
          onChange={(e) => onChange(e.target.value === "" ? undefined : e.target.value)}
        >
          <option value="">{field.required ? "Choose…" : "Not set (the service's default)"}</option>
          {field.options?.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </NativeSelect>
      );
      break;
    case "number":
      control = (
        <Input
          {...common}
          type="number"
          inputMode={field.integer ? "numeric" : "decimal"}
          className="w-full sm:w-40"
          min={field.minimum}
          max={field.maximum}
          step={field.integer ? 1 : "any"}
          value={typeof value === "number" ? String(value) : ""}
          onChange={(e) => onChange(e.target.value === "" ? undefined : Number(e.target.value))}
        />
      );
      break;
    case "checkbox":
      control = (
        <input
          {...common}
          type="checkbox"
          className="size-4 accent-primary"
          checked={value === true}
          onChange={(e) => onChange(e.target.checked)}
        />
      );
      break;
    case "image":
      control = <ImagePicker {...props} describedBy={describedBy} />;
      break;
    default:
      control = (
        <textarea
          {...common}
          className={cn(textareaClass, "font-mono text-xs")}
          defaultValue={value === undefined ? "" : JSON.stringify(value, null, 2)}
          onChange={(e) => {
            try {
              onChange(e.target.value.trim() === "" ? undefined : JSON.parse(e.target.value));
            } catch {
              // Kept as typed until it parses; validation reports the stale value meanwhile.
            }
          }}
        />
      );
  }

  return (
    <div className="grid gap-1.5">
      <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
        <Label htmlFor={id} className="font-mono text-sm">
          {field.name}
        </Label>
        <span className="text-xs text-muted-foreground">
          {field.type}
          {field.required ? " · required" : " · optional"}
        </span>
      </div>
      {control}
      <p id={hintId} className="text-xs text-muted-foreground">
        {[field.description, ...constraints].filter(Boolean).join(" · ") || "\u00a0"}
      </p>
      {errors?.length ? (
        <ul id={errorId} className="grid gap-0.5 text-sm text-destructive">
          {errors.map((message) => (
            <li key={message}>{message}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
