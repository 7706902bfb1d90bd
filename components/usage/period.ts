// The periods /usage offers (?period=7d|30d|90d), ending now; whole UTC days so the chart has one bar a day.
export const usagePeriods = [
  { id: "7d", label: "7 days", days: 7 },
  { id: "30d", label: "30 days", days: 30 },
  { id: "90d", label: "90 days", days: 90 },
] as const;
export type UsagePeriodId = (typeof usagePeriods)[number]["id"];

const dayMs = 24 * 3600 * 1000;

export function usagePeriod(id: string | undefined, now = new Date()) {
  const period = usagePeriods.find((p) => p.id === id) ?? usagePeriods[1];
  const todayStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return { ...period, periodStart: new Date(todayStart - (period.days - 1) * dayMs), periodEnd: now };
}

/** Every UTC day of the period, oldest first, with the summary's figures (zero on days without jobs). */
export function fillDays(
  byDay: { date: string; jobs: number; creditsUsed: number }[],
  periodStart: Date,
  days: number,
): { date: string; jobs: number; creditsUsed: number }[] {
  const known = new Map(byDay.map((d) => [d.date, d]));
  return Array.from({ length: days }, (_, i) => {
    const date = new Date(periodStart.getTime() + i * dayMs).toISOString().slice(0, 10);
    return known.get(date) ?? { date, jobs: 0, creditsUsed: 0 };
  });
}
