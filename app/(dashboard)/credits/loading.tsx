// This page's own loading state: a boundary above the pages would make every not-found answer 200.
export { PageLoading as default } from "@/components/dashboard/page-loading";
