// The one shell script the LIBVIRT connector runs over SSH: read-only virsh (`-r`) on the target's
// connection URI, each part headed by a marker line (a nonce of the run, so that text inside a
// domain's XML cannot pose as a section). The URI is the only value from outside in it: validated
// by the setting's pattern (no quote, space or shell character), then single-quoted.
import { randomBytes } from 'node:crypto';

/** What is read of each kind of object: the first command is its XML, the others its state. */
export const LIBVIRT_READS = {
  domain: ['dumpxml', 'domstate'],
  network: ['net-dumpxml'],
  pool: ['pool-dumpxml', 'vol-list'],
} as const;
export type LibvirtKind = keyof typeof LIBVIRT_READS;
const LISTINGS: Record<LibvirtKind, string> = { domain: 'list --all --uuid', network: 'net-list --all --uuid', pool: 'pool-list --all --uuid' };

/** A libvirt connection URI (qemu:///system, qemu+ssh://host/system?keyfile=..., test:///default). */
export const LIBVIRT_URI = /^[a-z][a-z0-9+.-]*:\/\/[A-Za-z0-9._~%+,;=:@/[\]-]*(\?[A-Za-z0-9._~%+,;=:@/?&-]*)?$/;
export const DEFAULT_LIBVIRT_URI = 'qemu:///system';
// Objects read per virsh process (one connection each): bounded, so that a command line stays short.
const BATCH = 50;

export interface LibvirtScript {
  command: string;
  mark: string;
}

export function libvirtScript(uri: string): LibvirtScript {
  if (!LIBVIRT_URI.test(uri)) throw new RangeError('not a libvirt URI');
  const mark = `@@${randomBytes(6).toString('hex')}`;
  const each = (Object.keys(LIBVIRT_READS) as LibvirtKind[]).map((kind) => `each ${kind} '${LISTINGS[kind]}' ${LIBVIRT_READS[kind].join(' ')}`);
  const command = [
    'export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"',
    `M=${mark}`,
    'command -v virsh >/dev/null 2>&1 || { echo "${M}absent"; exit 0; }',
    `v() { virsh -r -c '${uri}' "$@"; }`,
    // A URI that does not connect says why (virsh's error) and ends the read.
    'echo "${M}uri"; v uri 2>&1 || { echo "${M}unreachable"; exit 0; }',
    'echo "${M}hostname"; v hostname',
    'echo "${M}version"; v version',
    'echo "${M}sysinfo"; v sysinfo 2>/dev/null',
    'echo "${M}networks-inactive"; v net-list --inactive --uuid || echo "${M}failed"',
    'echo "${M}pools-inactive"; v pool-list --inactive --uuid || echo "${M}failed"',
    // each KIND LISTING READ...: list the UUIDs, then read each object, BATCH to a virsh process.
    [
      'each() { kind=$1; listing=$2; shift 2; ids=$(v $listing) || { echo "${M}failed"; return; }; cmds=""; n=0;',
      'for id in $ids; do case $id in *[!0-9a-f-]*) continue;; esac; for c in "$@"; do cmds="$cmds echo ${M}$kind:$id:$c; $c $id;"; done; n=$((n+1));',
      `if [ $n -ge ${BATCH} ]; then v "$cmds"; cmds=""; n=0; fi; done; [ -z "$cmds" ] || v "$cmds"; }`,
    ].join(' '),
    ...each,
    'echo "${M}end"',
  ].join('\n');
  return { command, mark };
}
