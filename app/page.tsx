import { redirect } from "next/navigation";
import { currentSession } from "@/components/auth/server-session";

export default async function Home() {
  redirect((await currentSession()) ? "/overview" : "/sign-in");
}
