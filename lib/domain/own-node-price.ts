// The one price rule for jobs on a developer's own nodes (CONTRACT §12): ceil(creditCost × OWN_NODE_CREDIT_SHARE),
// so a non-zero share never makes a paid service free.
import { env } from "@/lib/env";

export function ownNodeCreditCost(creditCost: number, share = env().OWN_NODE_CREDIT_SHARE): number {
  // Rounded to 1e-9 first: binary floating point makes 10 × 0.7 a hair above 7, which ceil would charge as 8.
  return Math.ceil(Math.round(creditCost * share * 1e9) / 1e9);
}
