// Next.js calls register() once when a server process starts (never during `next build`): in production,
// while server.mjs prepares Next.js, before it serves the first request. Start-up runs in the background
// (lib/serving.ts): /api/health answers "starting" meanwhile, and a fatal error exits. It hands server.mjs the
// server's edge, with the direct routes compiled here. With the OTEL_EXPORTER_OTLP_* variables, the OpenTelemetry
// SDK starts first (lib/tracing.ts).
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // Traces (only with the OTEL_EXPORTER_OTLP_* variables) start before anything that makes spans.
  const { startTracing } = await import("./lib/tracing");
  await startTracing("execution-network");
  const [{ startServing, stopOnSignals }, { directRoutes }] = await Promise.all([
    import("./lib/serving"),
    import("./app/api/direct-routes"),
  ]);
  stopOnSignals();
  startServing(directRoutes);
}
