"use client";

import * as React from "react";
import { useTheme } from "next-themes";
import { MonitorIcon, MoonIcon, SunIcon } from "lucide-react";
import { cn } from "@/components/ui/cn";

const themes = [
  { value: "system", label: "System", icon: MonitorIcon },
  { value: "light", label: "Light", icon: SunIcon },
  { value: "dark", label: "Dark", icon: MoonIcon },
] as const;

const subscribeNothing = () => () => {};

/** Three radio buttons: follow the system, or force light or dark. */
export function ThemeSwitcher({ className }: { className?: string }) {
  const { theme, setTheme } = useTheme();
  // The stored choice is only known in the browser: render none checked on the server and the first paint.
  const isClient = React.useSyncExternalStore(
    subscribeNothing,
    () => true,
    () => false,
  );
  const current = isClient ? (theme ?? "system") : undefined;
  return (
    <div role="radiogroup" aria-label="Theme" className={cn("inline-flex rounded-md border p-0.5", className)}>
      {themes.map(({ value, label, icon: Icon }) => (
        <button
          key={value}
          type="button"
          role="radio"
          aria-checked={current === value}
          aria-label={label}
          title={label}
          onClick={() => setTheme(value)}
          className={cn(
            "inline-flex size-7 items-center justify-center rounded-sm text-muted-foreground outline-none hover:text-foreground focus-visible:ring-[3px] focus-visible:ring-ring/50",
            current === value && "bg-sidebar-accent text-foreground",
          )}
        >
          <Icon className="size-4" aria-hidden />
        </button>
      ))}
    </div>
  );
}
