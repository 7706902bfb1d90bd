import { redirect } from "next/navigation";
import { currentSession } from "@/lib/http/page-session";
import { LandingPage } from "@/components/landing/landing-page";
import { listServices } from "@/lib/domain/services";
import { appOrigins, env } from "@/lib/env";

// Signed in: straight to the dashboard. Otherwise a short page on what this is and how to get in.
export default async function Home() {
  if (await currentSession()) redirect("/overview");
  return (
    <LandingPage services={await listServices()} origin={appOrigins()[0]} starterCredits={env().STARTER_CREDITS} />
  );
}
