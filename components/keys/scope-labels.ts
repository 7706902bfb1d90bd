// What each scope lets a key do, in the dashboard's words. The scope list itself lives in lib/contract/vocabulary.
import type { Scope } from "@/components/data/types";

export const scopeDescriptions: Record<Scope, string> = {
  "services:read": "Read the service catalog",
  "services:execute": "Submit jobs to services (spends credits)",
  "jobs:read": "Read jobs, their results and logs",
  "telemetry:read": "Read job telemetry events",
  "credits:read": "Read credit balance, history and usage",
  "webhooks:manage": "Manage webhook endpoints and see their deliveries",
  "nodes:manage": "Add, rotate and revoke your own execution nodes",
};

export const defaultScopes: Scope[] = ["services:execute", "jobs:read"];
