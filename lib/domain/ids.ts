/** Ids are UUIDs; anything else cannot name a row (and must not reach PostgreSQL as a uuid). */
export const isUuid = (v: string) =>
  /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(v);
