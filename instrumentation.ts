// Next.js calls register() once when a server process starts (never during `next build`). Start-up runs in
// the background (lib/serving.ts): /api/health answers "starting" meanwhile, and a fatal error exits.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const [{ startServing, stopOnSignals }, { directRoutes }] = await Promise.all([
    import("./lib/serving"),
    import("./app/api/direct-routes"),
  ]);
  stopOnSignals();
  startServing(directRoutes);
}
