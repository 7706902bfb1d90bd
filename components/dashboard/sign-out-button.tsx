"use client";

import { useRouter } from "next/navigation";
import { Loader2Icon, LogOutIcon } from "lucide-react";
import { ApiError } from "@/components/data/fetch-api";
import { useSignOut } from "@/components/data/session";
import { Button } from "@/components/ui/button";

/** Signs this browser out; with `everywhere`, revokes every session of the account (all browsers). */
export function SignOutButton({
  everywhere = false,
  variant = "ghost",
}: {
  everywhere?: boolean;
  variant?: "ghost" | "outline";
}) {
  const router = useRouter();
  const signOut = useSignOut({
    everywhere,
    onSignedOut: () => {
      router.replace("/sign-in");
      router.refresh();
    },
  });
  // The button stays busy from the click until the sign-in page replaces this one.
  const isSigningOut = signOut.isPending || signOut.isSuccess;

  return (
    <div className="grid gap-1">
      <Button
        variant={variant}
        size="sm"
        className={everywhere ? "w-fit" : "w-full justify-start"}
        onClick={() => signOut.mutate()}
        disabled={isSigningOut}
      >
        {isSigningOut ? <Loader2Icon className="animate-spin" /> : <LogOutIcon />}
        {everywhere ? "Sign out everywhere" : "Sign out"}
      </Button>
      {signOut.isError && (
        <p role="alert" className="px-2 text-xs text-destructive">
          {signOut.error instanceof ApiError
            ? `${signOut.error.message} (${signOut.error.code})`
            : "Could not sign out."}
        </p>
      )}
    </div>
  );
}
