// Reading a service's input JSON Schema for the playground: one field per top-level property, and the
// same validation the API applies (zod builds it from the published schema, so messages match the 422's).
import { z } from "zod";

export type JsonSchema = Record<string, unknown>;
export type InputValues = Record<string, unknown>;

export type FieldKind = "textarea" | "text" | "select" | "number" | "checkbox" | "image" | "json";

export interface FieldSpec {
  name: string;
  kind: FieldKind;
  required: boolean;
  type: string;
  description?: string;
  options?: string[];
  minimum?: number;
  maximum?: number;
  integer?: boolean;
  minLength?: number;
  maxLength?: number;
}

/** Strings up to this length get a one-line input; longer (or unbounded) ones a text area. */
const shortStringMax = 120;

const numberOf = (value: unknown) => (typeof value === "number" ? value : undefined);
const stringOf = (value: unknown) => (typeof value === "string" ? value : undefined);

function kindOf(name: string, prop: JsonSchema): FieldKind {
  const type = prop.type;
  if (Array.isArray(prop.enum) && prop.enum.every((v) => typeof v === "string")) return "select";
  if (type === "string") {
    // An image travels as base64 (or a data: URL) in a string property named for it.
    if (name === "image" || prop.contentEncoding === "base64") return "image";
    const max = numberOf(prop.maxLength);
    return max !== undefined && max <= shortStringMax ? "text" : "textarea";
  }
  if (type === "integer" || type === "number") return "number";
  if (type === "boolean") return "checkbox";
  return "json";
}

export function fieldsOf(schema: JsonSchema): FieldSpec[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const requiredNames = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const required = new Set(requiredNames);
  // Stored schemas (jsonb) lose their key order: required properties first, in the order `required` lists.
  const rank = (name: string) => (required.has(name) ? requiredNames.indexOf(name) : requiredNames.length);
  const entries = Object.entries(properties).sort(([a], [b]) => rank(a) - rank(b));
  return entries.map(([name, prop]) => ({
    name,
    kind: kindOf(name, prop),
    required: required.has(name),
    type: prop.type === "integer" ? "integer" : (stringOf(prop.type) ?? "any"),
    description: stringOf(prop.description),
    options: Array.isArray(prop.enum) ? (prop.enum as string[]) : undefined,
    minimum: numberOf(prop.minimum),
    maximum: numberOf(prop.maximum),
    integer: prop.type === "integer",
    minLength: numberOf(prop.minLength),
    maxLength: numberOf(prop.maxLength),
  }));
}

/** The constraints of a field in words: "1–20,000 characters", "1–10", "one of …". */
export function constraintsOf(field: FieldSpec): string[] {
  const n = (x: number) => x.toLocaleString("en");
  const out: string[] = [];
  // An image's length in base64 characters says nothing useful; its description gives the real limit.
  if (field.kind !== "image" && (field.minLength !== undefined || field.maxLength !== undefined)) {
    if (field.minLength !== undefined && field.maxLength !== undefined)
      out.push(`${n(field.minLength)}–${n(field.maxLength)} characters`);
    else if (field.maxLength !== undefined) out.push(`at most ${n(field.maxLength)} characters`);
    else if (field.minLength !== undefined) out.push(`at least ${n(field.minLength)} characters`);
  }
  if (field.minimum !== undefined && field.maximum !== undefined) out.push(`${n(field.minimum)}–${n(field.maximum)}`);
  else if (field.minimum !== undefined) out.push(`≥ ${n(field.minimum)}`);
  else if (field.maximum !== undefined) out.push(`≤ ${n(field.maximum)}`);
  if (field.options) out.push(`one of ${field.options.join(", ")}`);
  return out;
}

export interface InputIssue {
  path: string;
  message: string;
}

/** Issues keyed by top-level property; "" holds the ones about the input as a whole. */
export type FieldErrors = Record<string, string[]>;

export function errorsByField(issues: InputIssue[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const field = issue.path.split(".")[0] ?? "";
    (errors[field] ??= []).push(issue.message);
  }
  return errors;
}

export type InputValidator = (input: InputValues) => InputIssue[];

/** A validator for the schema; a schema zod cannot read validates nothing here (the API still does). */
export function validatorFor(schema: JsonSchema): InputValidator {
  let parser: z.ZodType;
  try {
    parser = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    return () => [];
  }
  return (input) => {
    const result = parser.safeParse(input);
    return result.success
      ? []
      : result.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message }));
  };
}
