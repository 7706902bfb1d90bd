"use client";

import * as React from "react";
import Link from "next/link";
import { CheckCircle2Icon, PencilIcon } from "lucide-react";
import { useProfile } from "@/components/data/profile";
import { formatCredits, formatDateTime } from "@/components/dashboard/format";
import { ErrorState } from "@/components/dashboard/states";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardAction, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Skeleton } from "@/components/ui/skeleton";
import { ProfileForm } from "./profile-form";

function Detail({ label, children, mono }: { label: string; children: React.ReactNode; mono?: boolean }) {
  return (
    <div className="grid gap-1 sm:grid-cols-[10rem_1fr] sm:gap-4">
      <dt className="text-sm text-muted-foreground">{label}</dt>
      <dd className={mono ? "font-mono text-sm break-all" : "text-sm"}>{children}</dd>
    </div>
  );
}

export function ProfilePanel({ suggestedProfileName }: { suggestedProfileName: string }) {
  const profile = useProfile();
  const [isEditing, setIsEditing] = React.useState(false);
  const [notice, setNotice] = React.useState<"created" | "saved" | null>(null);

  function saved(kind: "created" | "saved") {
    setIsEditing(false);
    setNotice(kind);
  }

  if (profile.isPending) {
    return (
      <Card aria-busy="true">
        <CardHeader>
          <Skeleton className="h-5 w-40" />
          <Skeleton className="h-4 w-64" />
        </CardHeader>
        <CardContent className="grid gap-3">
          <Skeleton className="h-5 w-full max-w-md" />
          <Skeleton className="h-5 w-full max-w-md" />
          <Skeleton className="h-5 w-full max-w-md" />
        </CardContent>
      </Card>
    );
  }
  if (profile.isError)
    return <ErrorState title="Could not load your profile" error={profile.error} onRetry={() => profile.refetch()} />;

  if (profile.data === null) {
    return (
      <Card>
        <CardHeader>
          <CardTitle>Create your developer profile</CardTitle>
          <CardDescription>
            Your keys, jobs and webhooks belong to it. Your first Run on a service&apos;s page creates it too.
          </CardDescription>
        </CardHeader>
        <CardContent>
          <ProfileForm profile={null} initialName={suggestedProfileName} onSaved={() => saved("created")} />
        </CardContent>
      </Card>
    );
  }

  const data = profile.data;
  return (
    <div className="grid gap-4">
      {notice && (
        <Alert variant="success">
          <CheckCircle2Icon />
          <AlertTitle>{notice === "created" ? "Profile created" : "Profile saved"}</AlertTitle>
          {notice === "created" && (
            <AlertDescription>
              <p>
                Next,{" "}
                <Link href="/keys" className="font-medium text-foreground underline underline-offset-4">
                  create an API key
                </Link>{" "}
                to call the API.
              </p>
            </AlertDescription>
          )}
        </Alert>
      )}
      <Card>
        <CardHeader>
          <CardTitle>{isEditing ? "Edit profile" : data.name}</CardTitle>
          <CardDescription>
            {isEditing ? "Only the fields you change are updated." : "Your developer profile."}
          </CardDescription>
          {!isEditing && (
            <CardAction>
              <Button
                variant="outline"
                size="sm"
                onClick={() => {
                  setNotice(null);
                  setIsEditing(true);
                }}
              >
                <PencilIcon /> Edit profile
              </Button>
            </CardAction>
          )}
        </CardHeader>
        <CardContent>
          {isEditing ? (
            <ProfileForm profile={data} onSaved={() => saved("saved")} onCancel={() => setIsEditing(false)} />
          ) : (
            <dl className="grid gap-3">
              <Detail label="Name">{data.name}</Detail>
              <Detail label="Email">{data.email ?? <span className="text-muted-foreground">Not set</span>}</Detail>
              <Detail label="Organization">
                {data.organization || <span className="text-muted-foreground">Not set</span>}
              </Detail>
              <Detail label="Low-balance alert">
                {data.lowBalanceThreshold === null ? (
                  <span className="text-muted-foreground">Off</span>
                ) : (
                  `Below ${formatCredits(data.lowBalanceThreshold)}`
                )}
              </Detail>
              <Detail label="Wallet" mono>
                {data.walletAddress}
              </Detail>
              <Detail label="Developer ID" mono>
                {data.developerId}
              </Detail>
              <Detail label="Created">{formatDateTime(data.createdAt)}</Detail>
            </dl>
          )}
        </CardContent>
      </Card>
    </div>
  );
}
