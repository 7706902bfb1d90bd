"use client";

// A set of checkboxes a create form picks from (a key's scopes, a node's services, an endpoint's events),
// each with its name in code type and what it means; what is picked keeps the options' order.
import { Checkbox } from "@/components/ui/checkbox";
import { Label } from "@/components/ui/label";

export function ChoiceList<T extends string>({
  legend,
  idPrefix,
  options,
  selected,
  onChange,
}: {
  legend: string;
  idPrefix: string;
  options: { value: T; description?: string }[];
  selected: readonly T[];
  onChange: (selected: T[]) => void;
}) {
  const toggle = (value: T, checked: boolean) =>
    onChange(options.map((o) => o.value).filter((v) => (v === value ? checked : selected.includes(v))));
  return (
    <fieldset className="grid gap-3">
      <legend className="mb-2 text-sm font-medium">{legend}</legend>
      {options.map(({ value, description }) => (
        <div key={value} className="flex items-start gap-3">
          <Checkbox
            id={`${idPrefix}-${value}`}
            checked={selected.includes(value)}
            onCheckedChange={(checked) => toggle(value, checked === true)}
            className="mt-0.5"
          />
          <div className="grid gap-0.5">
            <Label htmlFor={`${idPrefix}-${value}`} className="font-mono text-xs">
              {value}
            </Label>
            {description && <p className="text-xs text-muted-foreground">{description}</p>}
          </div>
        </div>
      ))}
    </fieldset>
  );
}
