"use client";

// Light and dark themes: the system's by default, switchable, stored in localStorage. next-themes sets the
// class on <html> from an inline script before the first paint, so there is no flash of the wrong theme.
import { ThemeProvider as NextThemesProvider } from "next-themes";

/** `nonce`: this request's CSP nonce (proxy.ts), so the strict CSP lets the inline theme script run. */
export function ThemeProvider({ children, nonce }: { children: React.ReactNode; nonce?: string }) {
  return (
    <NextThemesProvider attribute="class" defaultTheme="system" enableSystem disableTransitionOnChange nonce={nonce}>
      {children}
    </NextThemesProvider>
  );
}
