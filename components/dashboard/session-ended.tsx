"use client";

// One state for a session that ended mid-visit: when any dashboard call answers 401 (fetch-api.ts records it),
// a dialog over everything — including an open dialog, so it is never below the fold — says so and offers
// "Sign in again", which returns here afterwards; the sidebar stops saying "Signed in as".
import * as React from "react";
import { LogInIcon } from "lucide-react";
import { sessionEnded } from "@/components/data/fetch-api";
import { signInAgainHref } from "@/components/dashboard/states";
import { Button } from "@/components/ui/button";
import {
  AlertDialog,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
} from "@/components/ui/alert-dialog";

export function useSessionEnded(): boolean {
  return React.useSyncExternalStore(sessionEnded.subscribe, sessionEnded.get, () => false);
}

export function SessionEndedDialog() {
  const hasEnded = useSessionEnded();
  return (
    <AlertDialog open={hasEnded}>
      <AlertDialogContent onEscapeKeyDown={(event) => event.preventDefault()}>
        <AlertDialogHeader>
          <AlertDialogTitle>Your session has ended</AlertDialogTitle>
          <AlertDialogDescription>
            You were signed out (the session expired or was ended from another browser). Sign in again with the same
            wallet to come back to this page.
          </AlertDialogDescription>
        </AlertDialogHeader>
        <AlertDialogFooter>
          <Button asChild>
            {/* A full page load, so nothing this tab cached for the old session survives. */}
            <a href={signInAgainHref()}>
              <LogInIcon /> Sign in again
            </a>
          </Button>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}

/** The sidebar's account line: the address while signed in, "Session ended" once a call says otherwise. */
export function SignedInAs({ address, shortAddress }: { address: string; shortAddress: string }) {
  const hasEnded = useSessionEnded();
  return (
    <div className="grid gap-1" data-testid="session-state">
      <p className="px-2.5 text-xs text-muted-foreground">{hasEnded ? "Session ended" : "Signed in as"}</p>
      <p className="truncate px-2.5 font-mono text-sm" title={address} data-testid="signed-in-address">
        {shortAddress}
      </p>
    </div>
  );
}
