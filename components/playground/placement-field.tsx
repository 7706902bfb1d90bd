// Where a Run's job may run (CONTRACT §12): any node, only the developer's own nodes (at their price), or
// only the network's.
import type { Placement } from "@/components/data/types";
import { formatCredits } from "@/components/dashboard/format";
import { Label } from "@/components/ui/label";
import { NativeSelect } from "@/components/ui/native-select";

export function PlacementField({
  value,
  ownNodeCreditCost,
  disabled,
  onChange,
}: {
  value: Placement;
  ownNodeCreditCost: number;
  disabled: boolean;
  onChange: (placement: Placement) => void;
}) {
  return (
    <div className="flex items-center gap-2">
      <Label htmlFor="placement" className="text-sm text-muted-foreground">
        Runs on
      </Label>
      <NativeSelect
        id="placement"
        value={value}
        disabled={disabled}
        onChange={(e) => onChange(e.target.value as Placement)}
      >
        <option value="any">Any node</option>
        <option value="own">Your own nodes ({formatCredits(ownNodeCreditCost)})</option>
        <option value="network">The network&apos;s nodes</option>
      </NativeSelect>
    </div>
  );
}
