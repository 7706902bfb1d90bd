// The providers this process can run: those whose catalog entry is enabled by the configuration (the same
// rule that marks services active or disabled in the catalog).
import { catalog } from "@/lib/domain/catalog";
import { llmConfigured } from "@/lib/env";
import { providers } from "./index";
import type { Provider } from "./types";

export function availableProviders(): Partial<Record<string, Provider>> {
  const config = { llmConfigured: llmConfigured() };
  const enabled = new Set<string>(catalog.filter((entry) => entry.isEnabled(config)).map((entry) => entry.serviceId));
  return Object.fromEntries(Object.entries(providers).filter(([id]) => enabled.has(id)));
}

export async function closeProviders(): Promise<void> {
  await Promise.allSettled(Object.values(providers).map((p) => p.close?.()));
}
