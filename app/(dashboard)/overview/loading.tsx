// Per page, not for the whole dashboard: a loading boundary above a page sends the response's status before
// the page runs, and a page that turns out not to exist must still answer 404.
export { PageLoading as default } from "@/components/dashboard/page-loading";
