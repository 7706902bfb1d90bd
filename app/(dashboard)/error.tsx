"use client";

import { ErrorState } from "@/components/dashboard/states";

// A page that failed on the server: in production React hides the server's message and passes a digest,
// which the server logged beside the error; it is the reference to quote.
export default function DashboardError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <ErrorState
      title="This page failed to load"
      error={
        error.digest
          ? new Error(
              `Something went wrong on our side. Try again; if it keeps failing, quote reference ${error.digest}.`,
            )
          : error
      }
      onRetry={reset}
    />
  );
}
