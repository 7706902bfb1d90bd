// Next.js calls register() once when a server process starts: open + migrate the database, seed the
// catalog, start the sweeper and the embedded execution nodes.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startNetworkServices, stopOnSignals } = await import("./lib/network/embedded");
  await startNetworkServices();
  stopOnSignals();
}
