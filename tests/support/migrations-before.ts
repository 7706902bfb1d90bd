// A copy of the migrations folder as it was before one migration (the same files, the journal cut short), for
// the tests that fill a database as an older release left it and then migrate it to this one.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { migrationsFolder } from "@/lib/db/migrations";

/** The migrations folder as it was before `tag`, in a new temporary directory the caller removes. */
export function migrationsBefore(tag: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "en-migrations-"));
  cpSync(migrationsFolder, dir, { recursive: true });
  const journalFile = path.join(dir, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalFile, "utf8")) as { entries: { tag: string }[] };
  const cut = journal.entries.findIndex((e) => e.tag === tag);
  expect(cut).toBeGreaterThan(0);
  writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, cut) }));
  return dir;
}
