import { redirect } from "next/navigation";
import { currentSession } from "@/lib/http/page-session";

export default async function Home() {
  redirect((await currentSession()) ? "/overview" : "/sign-in");
}
