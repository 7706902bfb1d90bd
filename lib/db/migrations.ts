// Where drizzle-kit's migrations live: each driver runs them as it opens the database.
import path from "node:path";

export const migrationsFolder = path.join(process.cwd(), "drizzle");
