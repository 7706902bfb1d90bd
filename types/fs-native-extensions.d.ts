// The part of fs-native-extensions (Holepunch; no bundled types) that lib/db/data-dir.ts uses.
declare module "fs-native-extensions" {
  /** An exclusive (or shared) advisory lock on the open file `fd`: true when granted, false when another holds it. */
  export function tryLock(fd: number, options?: { shared?: boolean }): boolean;
  export function unlock(fd: number): void;
}
