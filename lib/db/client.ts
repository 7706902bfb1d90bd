// The names `@/lib/db/client` exported before the database layer was split by concern, kept while callers
// move to their own modules: the types from ./database, getDatabase and closeDatabase from ./open, the hot
// statements from ./prepared-statements. Import from those; nothing new belongs here.
export type { Database, Db, RunPrepared, Schema, Tx } from "./database";
export { closeDatabase, getDatabase } from "./open";
export { migrationsFolder } from "./migrations";
export {
  compiledTexts,
  executeShaped,
  maxShapesPerName,
  preparedPerDatabase,
  sqlLiterals,
} from "./prepared-statements";
