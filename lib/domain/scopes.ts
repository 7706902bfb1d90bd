export const scopes = ["services:read", "services:execute", "jobs:read", "telemetry:read", "credits:read", "webhooks:manage"] as const;
export type Scope = (typeof scopes)[number];
