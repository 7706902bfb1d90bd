import type { Metadata } from "next";
import { GeistSans } from "geist/font/sans";
import { GeistMono } from "geist/font/mono";
import { headers } from "next/headers";
import { QueryProvider } from "@/components/data/query-provider";
import { ThemeProvider } from "@/components/data/theme-provider";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Execution Network", template: "%s · Execution Network" },
  description: "Run AI workloads on an execution network: API, dashboard, nodes and client library.",
  icons: { icon: "/icon.svg" },
};

// Rendered per request, never at build time: `next build` must not reach the database (pages read it).
export const dynamic = "force-dynamic";

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // Every page renders per request (reading headers makes it dynamic): its scripts carry that request's
  // CSP nonce, set by proxy.ts; next-themes' inline script needs it explicitly.
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  return (
    // suppressHydrationWarning: next-themes sets the theme class on <html> before React hydrates.
    <html lang="en" className={`${GeistSans.variable} ${GeistMono.variable}`} suppressHydrationWarning>
      <body className="min-h-dvh">
        <ThemeProvider nonce={nonce}>
          <QueryProvider>{children}</QueryProvider>
        </ThemeProvider>
      </body>
    </html>
  );
}
