"use client";

// Where a page's resource needs a profile (keys, webhooks): create it right here, one field, prefilled.
import { UserRoundPlusIcon } from "lucide-react";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { ProfileForm } from "./profile-form";

export function ProfileRequired({ what, suggestedName }: { what: string; suggestedName: string }) {
  return (
    <Card>
      <CardHeader>
        <CardTitle className="flex items-center gap-2 text-base">
          <UserRoundPlusIcon className="size-4 text-muted-foreground" aria-hidden /> Create your developer profile
        </CardTitle>
        <CardDescription>
          {what} belong to a developer profile. A name is all it takes; add an email and organization later on Profile.
        </CardDescription>
      </CardHeader>
      <CardContent>
        {/* Saving writes the profile into the cache: the page then shows its content in place. */}
        <ProfileForm profile={null} initialName={suggestedName} nameOnly onSaved={() => undefined} />
      </CardContent>
    </Card>
  );
}
