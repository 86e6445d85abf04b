// Local processes as the tests that stop or kill stores see them.
import { execFileSync } from 'node:child_process';

/** The process listening on a local TCP port (ss shows owners to root). */
export function listenerPid(port: number): number {
  const out = execFileSync('ss', ['-Hltnp', `sport = :${port}`], { encoding: 'utf8' });
  const pid = /pid=(\d+)/.exec(out)?.[1];
  if (!pid) throw new Error(`nothing listens on ${port}: ${out}`);
  return Number(pid);
}
