// The one shell script the CONTAINERS connector runs over SSH: the first of docker and podman on
// the host that lists its containers (`ps --all --quiet --no-trunc`), then one `inspect` of them all
// (a JSON array, the same shape for both), then the host's processes with the SSH connector's own
// ps (the containers' are their main processes and what those started). Through `sudo -n` where
// the host allows it (the root daemon's or root's podman containers, as an operator grants `ss`),
// else as the account itself. Nothing from a target or a device is put into it but the ids,
// checked to be hexadecimal.
import { randomBytes } from 'node:crypto';
import { LINUX_COMMANDS } from '../ssh/linux-commands.js';

export const CONTAINER_RUNTIMES = ['docker', 'podman'] as const;

export function containerScript(): { command: string; mark: string } {
  const mark = `@@${randomBytes(6).toString('hex')}`;
  const command = [
    'export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"',
    `M=${mark}`,
    'ps="ps --all --quiet --no-trunc"; rt=""; found=""; reason=""',
    // The first runtime that lists: a docker client without its daemon gives way to podman.
    `for r in ${CONTAINER_RUNTIMES.join(' ')}; do command -v $r >/dev/null 2>&1 || continue; found=$r;`,
    'if ids=$(sudo -n $r $ps 2>/dev/null); then rt=$r; c() { sudo -n $rt "$@"; }; break; fi;',
    'if ids=$($r $ps 2>/dev/null); then rt=$r; c() { $rt "$@"; }; break; fi;',
    '[ -n "$reason" ] || reason=$($r $ps 2>&1 | head -n 3); done',
    '[ -n "$found" ] || { echo "${M}absent"; exit 0; }',
    '[ -n "$rt" ] || { echo "${M}runtime"; $found --version; echo "${M}unreachable"; echo "$reason"; exit 0; }',
    'echo "${M}runtime"; $rt --version',
    'echo "${M}hostname"; hostname 2>/dev/null || cat /proc/sys/kernel/hostname',
    'list=""; for id in $ids; do case $id in *[!0-9a-f]*) ;; *) list="$list $id";; esac; done',
    'echo "${M}inspect"; if [ -n "$list" ]; then c inspect $list || echo "${M}failed"; else echo "[]"; fi',
    // In subshells: each ends in exec, and a ps that fails marks its part unread.
    `echo "\${M}processes"; (${LINUX_COMMANDS.processes}) || echo "\${M}unread"`,
    `echo "\${M}names"; (${LINUX_COMMANDS.processNames}) || echo "\${M}unread"`,
    'echo "${M}end"',
  ].join('\n');
  return { command, mark };
}
