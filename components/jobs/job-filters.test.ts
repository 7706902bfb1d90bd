import { describe, expect, it } from "vitest";
import { jobFiltersApiQuery, jobFiltersQuery, parseJobFilters } from "./job-filters";

const parse = (query: string) => parseJobFilters(new URLSearchParams(query));

describe("the jobs list's filters in the URL", () => {
  it("reads status, service, dates and page, and round-trips them", () => {
    const query = "status=failed&serviceId=image-ocr&dateFrom=2026-11-01&dateTo=2026-11-23&page=3";
    const filters = parse(query);
    expect(filters).toEqual({
      status: "failed",
      serviceId: "image-ocr",
      dateFrom: "2026-11-01",
      dateTo: "2026-11-23",
      page: 3,
    });
    expect(jobFiltersQuery(filters)).toBe(query);
  });

  it("drops what makes no sense instead of failing the page", () => {
    expect(parse("status=exploded&dateFrom=yesterday&dateTo=2026-13-45&page=-2")).toEqual({
      status: undefined,
      serviceId: undefined,
      dateFrom: undefined,
      dateTo: undefined,
      page: 1,
    });
  });

  it("asks the API for whole UTC days, the last one included", () => {
    const api = new URLSearchParams(jobFiltersApiQuery(parse("dateFrom=2026-11-01&dateTo=2026-11-02"), 20));
    expect(api.get("dateFrom")).toBe("2026-11-01T00:00:00.000Z");
    expect(api.get("dateTo")).toBe("2026-11-02T23:59:59.999Z");
    expect(api.get("page")).toBe("1");
    expect(api.get("limit")).toBe("20");
  });
});
