// The providers this process can run: every built-in one, text-generate only with an LLM configured.
import { env } from "@/lib/env";
import { providers } from "./index";
import type { Provider } from "./types";

export function availableProviders(): Partial<Record<string, Provider>> {
  const llmConfigured = Boolean(env().LLM_BASE_URL);
  return Object.fromEntries(Object.entries(providers).filter(([id]) => id !== "text-generate" || llmConfigured));
}

export async function closeProviders(): Promise<void> {
  await Promise.allSettled(Object.values(providers).map((p) => p.close?.()));
}
