// Preloaded into a process under test (NODE_OPTIONS=--import=<this file>, LOADED_MODULES_FILE=<path>): when it
// exits, appends every module it loaded, one a line: the CommonJS ones (require.cache) and the ES modules
// (the URL of each import resolved, seen by a module hook), so a test can tell what a process never loaded.
import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";
import { isMainThread, MessageChannel } from "node:worker_threads";

// A process's main thread lists for it (a worker thread's modules are loaded by the same process); each process
// appends, so a child process that inherits the variables adds its own list instead of replacing its parent's.
if (isMainThread) listModulesAtExit();

function listModulesAtExit() {
  const loaded = new Set();
  const { port1, port2 } = new MessageChannel();
  port1.on("message", (url) => loaded.add(url));
  port1.unref();
  const hooks = `
  let port;
  export function initialize(data) { port = data.port; }
  export async function resolve(specifier, context, next) {
    const resolved = await next(specifier, context);
    port.postMessage(resolved.url);
    return resolved;
  }`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { port: port2 }, transferList: [port2] });

  const require = createRequire(import.meta.url);
  process.on("exit", () => {
    for (const file of Object.keys(require.cache)) loaded.add(file);
    if (process.env.LOADED_MODULES_FILE) appendFileSync(process.env.LOADED_MODULES_FILE, `${[...loaded].join("\n")}\n`);
  });
}
