import Link from "next/link";
import { SearchXIcon } from "lucide-react";
import { NotFoundState } from "@/components/dashboard/states";
import { Button } from "@/components/ui/button";

export default function JobNotFound() {
  return (
    <NotFoundState
      heading="Job not found"
      icon={SearchXIcon}
      title="There is no job with this id in your account"
      description="Check the id you followed; jobs of other accounts are not shown."
      action={
        <Button asChild variant="outline">
          <Link href="/jobs">All your jobs</Link>
        </Button>
      }
    />
  );
}
