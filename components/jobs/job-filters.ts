// The jobs list's filters as they live in the URL (?status=&serviceId=&dateFrom=&dateTo=&page=, CONTRACT §9,
// and the page's cursor, &after=), read leniently (a value that makes no sense is dropped, not an error) and
// turned into the API's query.
import { pageLinkFrom, pageLinkQuery } from "@/components/dashboard/page-links";
import { jobStatuses, type JobStatus } from "@/lib/contract/vocabulary";

export interface JobFilters {
  status?: JobStatus;
  serviceId?: string;
  /** YYYY-MM-DD, UTC days, both inclusive. */
  dateFrom?: string;
  dateTo?: string;
  page: number;
  /** The cursor the page starts after (`pagination.nextCursor`/`prevCursor`); none on the first page. */
  after?: string;
}

const isDay = (v: string | undefined): v is string =>
  !!v && /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v));

export function parseJobFilters(params: { get(name: string): string | null }): JobFilters {
  const read = (name: string) => params.get(name) ?? undefined;
  const status = read("status");
  const serviceId = read("serviceId")?.trim();
  const dateFrom = read("dateFrom");
  const dateTo = read("dateTo");
  const { page, after } = pageLinkFrom(read("page"), read("after"));
  return {
    status: jobStatuses.includes(status as JobStatus) ? (status as JobStatus) : undefined,
    serviceId: serviceId && serviceId.length <= 100 ? serviceId : undefined,
    dateFrom: isDay(dateFrom) ? dateFrom : undefined,
    dateTo: isDay(dateTo) ? dateTo : undefined,
    page,
    ...(after ? { after } : {}),
  };
}

/** The page's own URL query for these filters (empty members left out). */
export function jobFiltersQuery(filters: JobFilters): string {
  const q = new URLSearchParams();
  if (filters.status) q.set("status", filters.status);
  if (filters.serviceId) q.set("serviceId", filters.serviceId);
  if (filters.dateFrom) q.set("dateFrom", filters.dateFrom);
  if (filters.dateTo) q.set("dateTo", filters.dateTo);
  for (const [name, value] of Object.entries(pageLinkQuery(filters))) q.set(name, value);
  return q.toString();
}

/** The API's query: whole UTC days, so `dateTo` runs to the day's last millisecond. */
export function jobFiltersApiQuery(filters: JobFilters, limit: number): string {
  const q = new URLSearchParams({ page: String(filters.page), limit: String(limit) });
  if (filters.status) q.set("status", filters.status);
  if (filters.serviceId) q.set("serviceId", filters.serviceId);
  if (filters.dateFrom) q.set("dateFrom", `${filters.dateFrom}T00:00:00.000Z`);
  if (filters.dateTo) q.set("dateTo", `${filters.dateTo}T23:59:59.999Z`);
  if (filters.after) q.set("after", filters.after);
  return q.toString();
}

export const hasJobFilters = (f: JobFilters) => !!(f.status || f.serviceId || f.dateFrom || f.dateTo);
