import Link from "next/link";
import { SearchXIcon } from "lucide-react";
import { NotFoundState } from "@/components/dashboard/states";
import { Button } from "@/components/ui/button";

export default function ServiceNotFound() {
  return (
    <NotFoundState
      heading="Service not found"
      icon={SearchXIcon}
      title="There is no service with this id"
      description="Check the id you followed; the catalog lists every service you can run."
      action={
        <Button asChild variant="outline">
          <Link href="/services">All services</Link>
        </Button>
      }
    />
  );
}
