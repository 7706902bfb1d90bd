"use client";

// The job's logs as a console: it follows new lines only while the reader is at the bottom (scrolling up
// releases it and offers "Jump to latest"; opening a finished job does not jump), with a level filter, text
// search, wrap and timestamps toggles (remembered), a link to each line and copy all. The region is named
// "Logs" (CONTRACT §9).
import * as React from "react";
import { ArrowDownIcon } from "lucide-react";
import type { ExecutionLog } from "@/components/data/types";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { CopyButton } from "@/components/ui/copy-button";
import { Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { clockTime } from "./time";

const levelRank = { debug: 0, info: 1, warn: 2, error: 3 } as const;
const levelTone: Record<ExecutionLog["level"], string> = {
  debug: "text-muted-foreground",
  info: "text-foreground",
  warn: "text-warning",
  error: "text-destructive",
};
/** Within this many pixels of the bottom counts as "at the bottom". */
const followSlackPx = 48;
const prefsKey = "en.logs.prefs";

interface Prefs {
  wrap: boolean;
  timestamps: boolean;
}

function usePrefs(): [Prefs, (p: Prefs) => void] {
  const [prefs, setPrefs] = React.useState<Prefs>({ wrap: true, timestamps: true });
  React.useEffect(() => {
    try {
      const stored = JSON.parse(localStorage.getItem(prefsKey) ?? "null") as Partial<Prefs> | null;
      // Reading localStorage can only happen after hydration; this is the one update it causes.
      // eslint-disable-next-line react-hooks/set-state-in-effect
      if (stored) setPrefs((p) => ({ ...p, ...stored }));
    } catch {
      // unreadable preferences: keep the defaults
    }
  }, []);
  const save = (next: Prefs) => {
    setPrefs(next);
    try {
      localStorage.setItem(prefsKey, JSON.stringify(next));
    } catch {
      // storage full or blocked: the choice still applies to this page
    }
  };
  return [prefs, save];
}

export function LogConsole({ logs, isLive }: { logs: ExecutionLog[]; isLive: boolean }) {
  const [minLevel, setMinLevel] = React.useState<ExecutionLog["level"]>("debug");
  const [query, setQuery] = React.useState("");
  const [prefs, setPrefs] = usePrefs();
  const scroller = React.useRef<HTMLDivElement>(null);
  // Follow only a live job; a finished job's console opens at the top.
  const [isFollowing, setFollowing] = React.useState(isLive);
  const [hasUnseen, setHasUnseen] = React.useState(false);

  const needle = query.trim().toLowerCase();
  const shown = logs.filter(
    (l) => levelRank[l.level] >= levelRank[minLevel] && (!needle || l.message.toLowerCase().includes(needle)),
  );

  const lastSequence = logs.at(-1)?.sequence ?? 0;
  React.useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    if (isFollowing) el.scrollTop = el.scrollHeight;
    // Lines arriving while the reader looks elsewhere: offer to jump.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    else if (isLive) setHasUnseen(true);
  }, [lastSequence, isFollowing, isLive]);

  function onScroll() {
    const el = scroller.current;
    if (!el) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight <= followSlackPx;
    if (atBottom !== isFollowing) setFollowing(atBottom && isLive);
    if (atBottom) setHasUnseen(false);
  }

  function jumpToLatest() {
    const el = scroller.current;
    if (el) el.scrollTop = el.scrollHeight;
    setFollowing(isLive);
    setHasUnseen(false);
  }

  const asText = logs.map((l) => `${l.timestamp} ${l.level.toUpperCase()} [${l.source}] ${l.message}`).join("\n");

  return (
    <section aria-label="Logs" className="grid grid-cols-1 content-start gap-2">
      <div className="flex flex-wrap items-center gap-2">
        <h2 className="mr-auto text-base font-semibold">Logs</h2>
        <label className="flex items-center gap-1.5 text-sm text-muted-foreground">
          Level
          <NativeSelect
            value={minLevel}
            onChange={(e) => setMinLevel(e.target.value as ExecutionLog["level"])}
            className="h-8"
          >
            <option value="debug">All</option>
            <option value="info">Info and up</option>
            <option value="warn">Warnings and errors</option>
            <option value="error">Errors only</option>
          </NativeSelect>
        </label>
        <Input
          type="search"
          aria-label="Search logs"
          placeholder="Search"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          className="h-8 w-40"
        />
        <label className="flex items-center gap-1.5 text-sm text-muted-foreground">
          <input
            type="checkbox"
            checked={prefs.wrap}
            onChange={(e) => setPrefs({ ...prefs, wrap: e.target.checked })}
            className="accent-primary"
          />
          Wrap
        </label>
        <label className="flex items-center gap-1.5 text-sm text-muted-foreground">
          <input
            type="checkbox"
            checked={prefs.timestamps}
            onChange={(e) => setPrefs({ ...prefs, timestamps: e.target.checked })}
            className="accent-primary"
          />
          Times
        </label>
        <CopyButton value={asText} label="Copy all" />
      </div>
      <div className="relative">
        <div
          ref={scroller}
          onScroll={onScroll}
          tabIndex={0}
          aria-label="Log lines"
          role="log"
          className="h-72 overflow-auto rounded-lg border bg-muted/40 p-2 font-mono text-xs leading-relaxed outline-none focus-visible:ring-[3px] focus-visible:ring-ring/50"
        >
          {shown.length === 0 ? (
            <p className="p-2 text-muted-foreground">
              {logs.length === 0 ? "No log lines yet." : "No line matches the filter."}
            </p>
          ) : (
            <ol>
              {shown.map((line) => (
                // On a phone the line's metadata sits above its message, which gets the whole width.
                <li
                  key={line.sequence}
                  id={`log-${line.sequence}`}
                  className="grid gap-x-3 rounded px-1 target:bg-accent sm:flex"
                >
                  <span className="flex shrink-0 gap-3">
                    <a
                      href={`#log-${line.sequence}`}
                      className="w-8 shrink-0 text-right text-muted-foreground tabular-nums hover:underline"
                      aria-label={`Line ${line.sequence}`}
                    >
                      {line.sequence}
                    </a>
                    {prefs.timestamps && (
                      <span className="shrink-0 text-muted-foreground tabular-nums">{clockTime(line.timestamp)}</span>
                    )}
                    <span className={cn("w-11 shrink-0 uppercase", levelTone[line.level])}>{line.level}</span>
                    <span className="shrink-0 text-muted-foreground">{line.source}</span>
                  </span>
                  <span
                    className={cn(
                      "min-w-0 pl-11 sm:pl-0",
                      prefs.wrap ? "break-words whitespace-pre-wrap" : "whitespace-pre",
                    )}
                  >
                    {line.message}
                  </span>
                </li>
              ))}
            </ol>
          )}
        </div>
        {hasUnseen && !isFollowing && (
          <Button size="sm" className="absolute right-3 bottom-3 shadow" onClick={jumpToLatest}>
            <ArrowDownIcon /> Jump to latest
          </Button>
        )}
      </div>
    </section>
  );
}
