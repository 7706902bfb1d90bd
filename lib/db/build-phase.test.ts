import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const parent = mkdtempSync(path.join(tmpdir(), "en-build-phase-"));
const dataDir = path.join(parent, "data");
afterAll(() => rmSync(parent, { recursive: true, force: true }));

describe("the database during `next build`", () => {
  it("refuses to open in the build phase and leaves DATA_DIR unwritten", async () => {
    // Before the modules read their configuration (each test file runs in its own process).
    process.env.NEXT_PHASE = "phase-production-build";
    process.env.DATA_DIR = dataDir;
    process.env.DATABASE_URL = "";
    const { getDatabase } = await import("./open");
    await expect(getDatabase()).rejects.toThrow(/may not be opened during `next build`/);
    expect(existsSync(dataDir)).toBe(false);
  });
});
