// Times on the job page. Rendered in UTC on the server and in the browser alike, so hydration never sees a
// different string (local time is in each time's tooltip once the page runs in the browser).

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** "14:03:07.125" (UTC). */
export function clockTime(iso: string): string {
  const d = new Date(iso);
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`;
}

/** "2026-11-23" (UTC). */
export const utcDate = (iso: string) => iso.slice(0, 10);

/** "850 ms", "2.4 s", "3 min 05 s", "2 h 04 min". */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "—";
  const value = Math.max(0, Math.round(ms));
  if (value < 1000) return `${value} ms`;
  if (value < 60_000) return `${(value / 1000).toFixed(value < 10_000 ? 2 : 1)} s`;
  const seconds = Math.floor(value / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${pad(seconds % 60)} s`;
  return `${Math.floor(seconds / 3600)} h ${pad(Math.floor((seconds % 3600) / 60))} min`;
}

/** "+12 ms" — the gap since the previous event. */
export const formatGap = (ms: number) => `+${formatDuration(ms)}`;
