"use client";

// Light and dark themes: the system's by default, switchable, stored in localStorage. next-themes sets the
// class on <html> from an inline script before the first paint, so there is no flash of the wrong theme.
import { ThemeProvider as NextThemesProvider } from "next-themes";

export function ThemeProvider({ children }: { children: React.ReactNode }) {
  return (
    <NextThemesProvider attribute="class" defaultTheme="system" enableSystem disableTransitionOnChange>
      {children}
    </NextThemesProvider>
  );
}
