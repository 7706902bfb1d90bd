// Percentiles and formatting for the benchmark's tables.

export interface Summary {
  count: number;
  p50: number;
  p99: number;
  avg: number;
  /**
   * The average of the middle 90 % (5 % of the values left out at each end): it resolves a fraction of the whole
   * milliseconds the overheads are measured in, as the p50 cannot, and one stray 100 ms wait does not move it.
   */
  middleAvg: number;
  max: number;
}

/** Nearest-rank percentile of an ascending array. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

function middleAverage(sorted: number[]): number {
  const cut = Math.floor(sorted.length * 0.05);
  const middle = sorted.slice(cut, sorted.length - cut);
  return middle.length ? middle.reduce((a, b) => a + b, 0) / middle.length : Number.NaN;
}

/** Summary of the finite values (a job without a milestone contributes nothing). */
export function summarize(values: number[]): Summary {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    avg: sorted.length ? sum / sorted.length : Number.NaN,
    middleAvg: middleAverage(sorted),
    max: sorted.length ? sorted[sorted.length - 1] : Number.NaN,
  };
}

export const ms = (v: number) => (Number.isFinite(v) ? `${v < 10 ? v.toFixed(2) : v.toFixed(1)} ms` : "n/a");
export const perSecond = (v: number) => (Number.isFinite(v) ? `${v < 100 ? v.toFixed(1) : Math.round(v)}/s` : "n/a");
export const percent = (v: number) => (Number.isFinite(v) ? `${Math.round(v)} %` : "n/a");
/** `a / b` as "2.35×"; n/a when either side is missing or zero. */
export const ratio = (a: number, b: number) =>
  Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? `${(a / b).toFixed(2)}×` : "n/a";

/** The middle of the finite values (NaN when there are none). */
export function median(values: number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** A Markdown table; the same text is printed to the terminal. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (c ?? "").padEnd(widths[i])).join(" | ")} |`;
  return [line(header), `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`, ...rows.map(line)].join("\n");
}

/** "1 node", "4 nodes": how every table names a server's embedded nodes. */
export const nodesLabel = (n: number) => `${n} node${n === 1 ? "" : "s"}`;
