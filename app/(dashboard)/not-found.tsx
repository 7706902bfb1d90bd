import Link from "next/link";
import { MapPinOffIcon } from "lucide-react";
import { NotFoundState } from "@/components/dashboard/states";
import { Button } from "@/components/ui/button";

export default function DashboardNotFound() {
  return (
    <NotFoundState
      heading="Page not found"
      icon={MapPinOffIcon}
      title="There is no page at this address"
      description="The link may be mistyped or out of date. Everything in the dashboard is one click away in the navigation."
      action={
        <div className="flex flex-wrap justify-center gap-2">
          <Button asChild>
            <Link href="/overview">Go to the overview</Link>
          </Button>
          <Button asChild variant="outline">
            <Link href="/services">Browse services</Link>
          </Button>
        </div>
      }
    />
  );
}
