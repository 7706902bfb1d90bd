// What every fault scenario shares: a throwaway database on the suite's private PostgreSQL cluster, the
// audit that ends each scenario, and a developer with an API key.
import pg from "pg";
import { expect } from "vitest";
import { auditDatabase, describeAudit, type AuditReport } from "../support/audit";
import { createThrowawayDatabase } from "../support/postgres";

/** Ports of the fault suite (the faults engineer's range 3701…3750 on the shared machine). */
export const faultPorts = {
  nodeKill: { postgres: 3741 },
  sdkBurst: { postgres: 3742, server: 3743 },
  outage: { postgres: 3744, server: 3745 },
  embedded: { server: 3746 },
} as const;

export const scratchDatabase = (adminUrl: string) => createThrowawayDatabase(adminUrl, "en_faults");

export async function auditPostgres(url: string): Promise<AuditReport> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await auditDatabase(client);
  } finally {
    await client.end();
  }
}

/** The scenario's last assertion: the data is consistent (the report is printed either way). */
export function expectCleanAudit(report: AuditReport, scenario: string): void {
  process.stderr.write(`[faults] ${scenario}: audit ${describeAudit(report)}\n`);
  expect(report.violations).toEqual([]);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
