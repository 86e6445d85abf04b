// The account of a local OS user, for the local stores that run as one of their own when the
// service runs as root (PostgreSQL refuses root; Neo4j should not have it).
import { execFileSync } from 'node:child_process';

export interface OsAccount {
  uid: number;
  gid: number;
}

/** The uid and gid of `user` (which must exist). */
export function osAccount(user: string): OsAccount {
  const id = (flag: string) => Number(execFileSync('id', [flag, user], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}
