// The name a developer's first Run gives the profile it creates (editable here, and later on Profile).
import { cn } from "@/components/ui/cn";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";

export function profileNameProblem(name: string): string | null {
  const trimmed = name.trim();
  if (!trimmed) return "Enter a name for your developer profile.";
  if (trimmed.length > 80) return "Use at most 80 characters.";
  return null;
}

export function ProfileNameField({
  value,
  error,
  disabled,
  onChange,
}: {
  value: string;
  error: string | null;
  disabled: boolean;
  onChange: (name: string) => void;
}) {
  return (
    <div className="grid gap-1.5 rounded-md border border-dashed p-3">
      <Label htmlFor="profile-name">Your developer name</Label>
      <Input
        id="profile-name"
        value={value}
        maxLength={80}
        disabled={disabled}
        autoComplete="name"
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby="profile-name-hint"
        className="sm:w-80"
      />
      <p id="profile-name-hint" className={cn("text-xs", error ? "text-destructive" : "text-muted-foreground")}>
        {error ?? "Your first Run creates your developer profile with this name; change it any time on Profile."}
      </p>
    </div>
  );
}
