// Jobs and credits by day as two hand-rolled SVG bar charts sharing one axis of days: nothing to load, no
// layout shift (fixed aspect ratio), colours from the theme's tokens. The same figures are in a table for
// screen readers and for copying.
import { cn } from "@/components/ui/cn";

interface Day {
  date: string;
  jobs: number;
  creditsUsed: number;
}

function Bars({
  days,
  value,
  label,
  className,
}: {
  days: Day[];
  value: (d: Day) => number;
  label: string;
  className: string;
}) {
  const width = 600;
  const height = 120;
  const max = Math.max(1, ...days.map(value));
  const slot = width / days.length;
  const gap = Math.min(4, slot * 0.25);
  const total = days.reduce((sum, d) => sum + value(d), 0);
  return (
    <figure className="grid gap-1">
      <figcaption className="flex justify-between text-xs text-muted-foreground">
        <span>{label}</span>
        <span className="tabular-nums">
          total {total} · max {max}/day
        </span>
      </figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" className="aspect-[5/1] w-full" aria-hidden>
        <line x1="0" y1={height - 0.5} x2={width} y2={height - 0.5} className="stroke-border" />
        {days.map((d, i) => {
          const h = (value(d) / max) * (height - 4);
          return (
            <rect
              key={d.date}
              x={i * slot + gap / 2}
              y={height - h}
              width={slot - gap}
              height={h}
              rx="1.5"
              className={cn(className)}
            >
              <title>{`${d.date}: ${value(d)}`}</title>
            </rect>
          );
        })}
      </svg>
    </figure>
  );
}

export function DailyChart({ days }: { days: Day[] }) {
  return (
    <div className="grid gap-4">
      <Bars days={days} value={(d) => d.jobs} label="Jobs per day" className="fill-info" />
      <Bars days={days} value={(d) => d.creditsUsed} label="Credits used per day" className="fill-warning" />
      <div className="flex justify-between font-mono text-xs text-muted-foreground">
        <span>{days[0]?.date}</span>
        <span>{days.at(-1)?.date} (UTC)</span>
      </div>
      <details className="text-sm">
        <summary className="w-fit cursor-pointer text-muted-foreground hover:text-foreground">Show as a table</summary>
        <table className="mt-2 w-full text-left text-xs tabular-nums">
          <thead>
            <tr className="text-muted-foreground">
              <th className="py-1 font-medium">Day (UTC)</th>
              <th className="py-1 text-right font-medium">Jobs</th>
              <th className="py-1 text-right font-medium">Credits used</th>
            </tr>
          </thead>
          <tbody>
            {days.map((d) => (
              <tr key={d.date} className="border-t">
                <td className="py-1 font-mono">{d.date}</td>
                <td className="py-1 text-right">{d.jobs}</td>
                <td className="py-1 text-right">{d.creditsUsed}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </div>
  );
}
