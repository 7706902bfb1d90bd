import { Skeleton } from "@/components/ui/skeleton";

// The job page's shape while the server reads the job, so nothing jumps when it arrives.
export default function JobLoading() {
  return (
    <div className="grid gap-6" aria-busy="true" aria-label="Loading the job">
      <div className="grid gap-4 border-b pb-5">
        <Skeleton className="h-8 w-64" />
        <Skeleton className="h-5 w-full max-w-xl" />
        <Skeleton className="h-9 w-48" />
      </div>
      <Skeleton className="h-48" />
      <div className="grid gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
        <Skeleton className="h-80" />
        <Skeleton className="h-80" />
      </div>
    </div>
  );
}
