// Applies the migrations (and adds the catalog's missing rows) to DATABASE_URL or the embedded database under DATA_DIR.
import { readyDatabase } from "@/lib/domain/database";
import { runCommand } from "./cli";

void runCommand(async () => {
  const { driver } = await readyDatabase();
  process.stdout.write(`${JSON.stringify({ migrated: true, driver })}\n`);
});
