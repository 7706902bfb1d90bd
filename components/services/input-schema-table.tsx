// The input schema in words: one row per property with its type, whether it is required, its limits.
import { constraintsOf, fieldsOf, type JsonSchema } from "@/components/playground/input-schema";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";

export function InputSchemaTable({ schema }: { schema: JsonSchema }) {
  const fields = fieldsOf(schema);
  return (
    <div className="grid min-w-0 gap-3">
      {fields.length === 0 ? (
        <p className="text-sm text-muted-foreground">This service takes an empty object as input.</p>
      ) : (
        <div className="overflow-x-auto rounded-md border">
          <Table>
            <TableHeader>
              <TableRow className="hover:bg-transparent">
                <TableHead>Property</TableHead>
                <TableHead>Type</TableHead>
                <TableHead>Limits</TableHead>
                <TableHead>Description</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {fields.map((field) => (
                <TableRow key={field.name}>
                  <TableCell className="font-mono text-xs whitespace-nowrap">
                    {field.name}
                    <span className="ml-2 font-sans text-muted-foreground">
                      {field.required ? "required" : "optional"}
                    </span>
                  </TableCell>
                  <TableCell className="font-mono text-xs">{field.type}</TableCell>
                  <TableCell className="text-xs whitespace-normal">{constraintsOf(field).join("; ") || "—"}</TableCell>
                  <TableCell className="text-xs whitespace-normal text-muted-foreground">
                    {field.description ?? "—"}
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </div>
      )}
      {schema.additionalProperties === false && (
        <p className="text-xs text-muted-foreground">Other properties are refused (422).</p>
      )}
      <details className="group min-w-0 overflow-hidden rounded-md border bg-muted/40 text-sm">
        <summary className="cursor-pointer px-3 py-2 text-xs font-medium text-muted-foreground select-none group-open:border-b">
          JSON Schema
        </summary>
        <pre tabIndex={0} className="max-h-72 overflow-auto p-3 font-mono text-xs leading-relaxed">
          {JSON.stringify(schema, null, 2)}
        </pre>
      </details>
    </div>
  );
}
