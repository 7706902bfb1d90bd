"use client";

import * as React from "react";
import { useRouter } from "next/navigation";
import { useQueryClient } from "@tanstack/react-query";
import { Loader2Icon, LogOutIcon } from "lucide-react";
import { apiFetch, ApiError } from "@/components/data/fetch-api";
import { Button } from "@/components/ui/button";

/** Signs this browser out; with `everywhere`, revokes every session of the account (all browsers). */
export function SignOutButton({ everywhere = false, variant = "ghost" }: { everywhere?: boolean; variant?: "ghost" | "outline" }) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [pending, setPending] = React.useState(false);
  const [failure, setFailure] = React.useState<string | null>(null);

  async function signOut() {
    setPending(true);
    setFailure(null);
    try {
      await apiFetch<void>(everywhere ? "/api/auth/logout-everywhere" : "/api/auth/logout", { method: "POST" });
      // Nothing of this account may linger for whoever signs in next in this tab.
      queryClient.clear();
      router.replace("/sign-in");
      router.refresh();
    } catch (error) {
      setFailure(error instanceof ApiError ? `${error.message} (${error.code})` : "Could not sign out.");
      setPending(false);
    }
  }

  return (
    <div className="grid gap-1">
      <Button variant={variant} size="sm" className={everywhere ? "w-fit" : "w-full justify-start"} onClick={signOut} disabled={pending}>
        {pending ? <Loader2Icon className="animate-spin" /> : <LogOutIcon />}
        {everywhere ? "Sign out everywhere" : "Sign out"}
      </Button>
      {failure && (
        <p role="alert" className="px-2 text-xs text-destructive">
          {failure}
        </p>
      )}
    </div>
  );
}
