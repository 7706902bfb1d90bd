// Hands the profile, read on the server with the page, to the browser's cache: client components know at
// once whether there is one, never ask for it (a missing profile would be a 404 in the console), and see
// one created elsewhere (another tab, the API) on the next page they open.
import { HydrationBoundary } from "@tanstack/react-query";
import { profileState } from "@/components/data/profile";
import type { Profile } from "@/components/data/types";

export function WithProfile({ profile, children }: { profile: Profile | null; children: React.ReactNode }) {
  return <HydrationBoundary state={profileState(profile)}>{children}</HydrationBoundary>;
}
