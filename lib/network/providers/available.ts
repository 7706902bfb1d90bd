// The providers this process can run: those whose catalog entry is enabled by the configuration (the same
// rule that marks services active or disabled in the catalog), each behind the parse of its service's input.
import { z } from "zod";
import { catalog, serviceInputs, type ServiceId, type ServiceInput } from "@/lib/domain/catalog";
import { llmConfigured } from "@/lib/env";
import { providers } from "./index";
import { ProviderError, type Provider, type WireProvider } from "./types";

/**
 * The provider of S taking input as a claimed job carries it. Submission validated it already, but a node
 * may run apart from the server that did: it parses again rather than trust the wire, and refuses input
 * its service's schema refuses as a failure no retry can fix.
 */
export function parsingWireInput<S extends ServiceId>(provider: Provider<S>): WireProvider {
  const schemas: { [K in ServiceId]: z.ZodType<ServiceInput<K>> } = serviceInputs;
  const schema = schemas[provider.serviceId];
  return {
    serviceId: provider.serviceId,
    warmUp: provider.warmUp?.bind(provider),
    close: provider.close?.bind(provider),
    async run(input, ctx) {
      const parsed = await schema.safeParseAsync(input);
      if (!parsed.success) {
        throw new ProviderError(
          "INPUT_INVALID",
          `The input does not match the ${provider.serviceId} input schema: ${z.prettifyError(parsed.error)}`,
          false,
        );
      }
      return provider.run(parsed.data, ctx);
    },
  };
}

export function availableProviders(): Partial<Record<string, WireProvider>> {
  const config = { llmConfigured: llmConfigured() };
  const enabled = catalog.filter((entry) => entry.isEnabled(config)).map((entry) => entry.serviceId);
  return Object.fromEntries(enabled.map((serviceId) => [serviceId, parsingWireInput(providers[serviceId])]));
}

export async function closeProviders(): Promise<void> {
  await Promise.allSettled(Object.values(providers).map((p) => p.close?.()));
}
