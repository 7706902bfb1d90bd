// Empty and error states shared by the dashboard's pages.
import * as React from "react";
import { AlertCircleIcon, RotateCwIcon } from "lucide-react";
import { ApiError } from "@/components/data/fetch-api";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { AddCreditsLink } from "./add-credits";
import { signInHref } from "@/lib/contract/return-to";

export function EmptyState({
  icon: Icon,
  title,
  description,
  action,
  className,
}: {
  icon?: React.ComponentType<{ className?: string }>;
  title: string;
  description?: React.ReactNode;
  action?: React.ReactNode;
  className?: string;
}) {
  return (
    <div
      className={cn(
        "flex flex-col items-center justify-center gap-2 rounded-lg border border-dashed px-6 py-12 text-center",
        className,
      )}
    >
      {Icon && (
        <div className="mb-1 flex size-10 items-center justify-center rounded-full bg-muted">
          <Icon className="size-5 text-muted-foreground" />
        </div>
      )}
      <p className="font-medium">{title}</p>
      {description && <p className="max-w-sm text-sm text-muted-foreground">{description}</p>}
      {action && <div className="mt-3">{action}</div>}
    </div>
  );
}

/**
 * An API failure: its message and code (and request id for support), with the way on: sign in again when
 * the session ended, add credits when they ran short, otherwise try again.
 */
export function ErrorState({
  error,
  onRetry,
  title = "Could not load this",
}: {
  error: unknown;
  onRetry?: () => void;
  title?: string;
}) {
  const apiError = error instanceof ApiError ? error : null;
  // Any 401 from the dashboard's own data is the session ending (whatever code the route gives it).
  const isSignedOut = apiError?.status === 401;
  return (
    <Alert variant="destructive">
      <AlertCircleIcon />
      <AlertTitle>{isSignedOut ? "Your session has ended" : title}</AlertTitle>
      <AlertDescription>
        <p>
          {isSignedOut
            ? "Sign in again to come back to this page."
            : (apiError?.message ?? (error instanceof Error ? error.message : "Something went wrong."))}
        </p>
        {apiError && (
          <p className="font-mono text-xs">
            {apiError.code}
            {apiError.requestId && ` · ${apiError.requestId}`}
          </p>
        )}
        <div className="mt-2 flex flex-wrap items-center gap-2">
          {apiError?.code === "INSUFFICIENT_CREDITS" && <AddCreditsLink />}
          {isSignedOut ? (
            <Button asChild size="sm" variant="outline">
              <a href={signInAgainHref()}>Sign in again</a>
            </Button>
          ) : (
            onRetry && (
              <Button size="sm" variant="outline" onClick={onRetry}>
                <RotateCwIcon /> Try again
              </Button>
            )
          )}
        </div>
      </AlertDescription>
    </Alert>
  );
}

/** The sign-in page's address that comes back to the page shown now. */
export function signInAgainHref(): string {
  return typeof window === "undefined"
    ? "/sign-in"
    : signInHref(`${window.location.pathname}${window.location.search}`);
}

/** A not-found page's body inside the dashboard: its heading, what is missing, and the way on. */
export function NotFoundState({
  heading,
  icon,
  title,
  description,
  action,
}: {
  heading: string;
  icon: React.ComponentType<{ className?: string }>;
  title: string;
  description: string;
  action: React.ReactNode;
}) {
  return (
    <>
      <h1 className="text-2xl font-semibold tracking-tight">{heading}</h1>
      <EmptyState icon={icon} title={title} description={description} action={action} />
    </>
  );
}
