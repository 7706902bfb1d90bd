// A failure shown where it happened: a title, a sentence a person can act on, and the error code and request
// id to quote when asking for help.
import type * as React from "react";
import { AlertCircleIcon } from "lucide-react";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";

export interface Problem {
  title: string;
  message: React.ReactNode;
  code?: string;
  requestId?: string;
}

export function ProblemAlert({
  problem,
  variant = "destructive",
}: {
  problem: Problem;
  variant?: "destructive" | "warning";
}) {
  return (
    <Alert variant={variant}>
      <AlertCircleIcon />
      <AlertTitle>{problem.title}</AlertTitle>
      <AlertDescription>
        <p>{problem.message}</p>
        {(problem.code || problem.requestId) && (
          <p className="font-mono text-xs">
            {problem.code}
            {problem.requestId && ` · ${problem.requestId}`}
          </p>
        )}
      </AlertDescription>
    </Alert>
  );
}
