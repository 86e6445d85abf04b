// The ldap section: a directory of 10,000 computers read from the lab's OpenLDAP (slapd on the lab
// host ldap, over LDAPS, its computers under ou=Bench besides the lab's own), read alone (the
// certificate checked and pinned, the bind, the paged search, then the entries mapped to an estate)
// beside its floor in the same run: OpenLDAP's own client, ldapsearch, with the same paged search
// (-E pr=500) of the same attributes over LDAPS; then inventoried by the whole service through its
// API (an LDAP target, scanned three times: the first run creates the computers, the others find
// them unchanged).
import { execFile } from 'node:child_process';
import os from 'node:os';
import { promisify } from 'node:util';
import type { RevealedCredential } from '../../features/credentials/credential-service.js';
import type { Pin, Pins } from '../../features/discovery/host-state-store.js';
import { COMPUTER_ATTRIBUTES, COMPUTER_FILTER, rootDseOf, toEstate } from '../../features/discovery/connectors/ldap/ldap-computers.js';
import { readDirectory } from '../../features/discovery/connectors/ldap/ldap-directory.js';
import { DEFAULT_MAX_ENTRIES, DEFAULT_PAGE_SIZE } from '../../features/discovery/connectors/ldap/ldap.js';
import { LDAP_BASE_DN, LDAP_BIND_DN, LDAP_BIND_PASSWORD, LDAP_SERVER_OCTET } from '../lab/directory-lab.js';
import { networkUnavailable, startTestNetwork, SUBNET } from '../lab/lab-network.js';
import { elapsedMs, int, loadAverage, machine, median, scanRepeatedly, withDataDir, withService, writeSection, type BenchRunView } from './support.js';

const run = promisify(execFile);
const COMPUTERS = 10_000;
const READS = 5;
const RUNS = 3;
const RUN_DEADLINE_MS = 20 * 60_000;
const LEASE_MS = 10 * 60_000;
const ADDRESS = `${SUBNET}.${LDAP_SERVER_OCTET}`;

interface RunView extends BenchRunView {
  summary: { hostsResponding: number; assetsCreated: number; assetsUpdated: number; errors: number };
}

/** Pins kept in memory: the read alone pins and compares as the service does, without its store. */
function memoryPins(): Pins {
  const pins = new Map<string, Pin>();
  return {
    pinOrCompare: async (kind, address, port, seen) => {
      const key = `${kind}|${address}|${port}`;
      const pinned = pins.get(key);
      if (!pinned) pins.set(key, seen);
      return pinned && pinned.fingerprint !== seen.fingerprint ? pinned : undefined;
    },
  };
}

export async function ldapBench(): Promise<void> {
  const unavailable = await networkUnavailable();
  if (unavailable) throw new Error(`the lab network cannot run: ${unavailable}`);
  const load = loadAverage();
  const lab = await startTestNetwork({ ldapServer: true, ldapExtraComputers: COMPUTERS });
  try {
    const credential = { id: 'bench', name: 'bench', kind: 'LDAP_BIND', settings: { bindDn: LDAP_BIND_DN, baseDn: LDAP_BASE_DN }, secrets: { password: LDAP_BIND_PASSWORD } } as unknown as RevealedCredential;
    const pins = memoryPins();
    const options = () => ({ host: ADDRESS, port: 636, security: 'ldaps' as const, verifyCertificate: false, timeoutMs: 60_000, pageSize: DEFAULT_PAGE_SIZE, maxEntries: DEFAULT_MAX_ENTRIES, deadline: Date.now() + RUN_DEADLINE_MS });
    const reads: { ms: number; searchMs: number; pages: number; entries: number; assets: number }[] = [];
    const floors: { ms: number; entries: number; pages: number }[] = [];
    for (let i = 0; i < READS; i++) {
      // The floor: ldapsearch's paged search of the same entries and attributes, its LDIF read whole.
      let start = process.hrtime.bigint();
      const { stdout } = await run('ldapsearch', ['-LLL', '-H', `ldaps://${ADDRESS}:636`, '-D', LDAP_BIND_DN, '-w', LDAP_BIND_PASSWORD, '-b', LDAP_BASE_DN,
        '-E', `pr=${DEFAULT_PAGE_SIZE}/noprompt`, COMPUTER_FILTER, ...COMPUTER_ATTRIBUTES], { env: { ...process.env, LDAPTLS_REQCERT: 'never' }, maxBuffer: 256 * 1024 * 1024 });
      floors.push({ ms: elapsedMs(start), entries: (stdout.match(/^dn: /gm) ?? []).length, pages: (stdout.match(/^# pagedresults:/gm) ?? []).length });
      start = process.hrtime.bigint();
      const read = await readDirectory([credential], options(), pins);
      const searchMs = elapsedMs(start);
      if (read.failure) throw new Error(`the read failed: ${JSON.stringify(read.failure)}`);
      const estate = toEstate(ADDRESS, 'LDAP:bench', LDAP_BASE_DN, rootDseOf(read.rootDse), read.entries);
      reads.push({ ms: elapsedMs(start), searchMs, pages: read.pages, entries: read.entries.length, assets: estate.assets.length });
      console.log(`read ${i + 1}/${READS}: ${(searchMs / 1000).toFixed(2)} s, ldapsearch ${((floors.at(-1)?.ms ?? 0) / 1000).toFixed(2)} s`);
    }
    const runs = await withDataDir((dataDir) =>
      // The load step reports no progress: a load longer than the run's lease (60 s) would be taken for a lost worker.
      withService(dataDir, { discoveryLeaseMs: LEASE_MS }, async (_service, api) => {
        const credentialId = (await api.post<{ data: { id: string } }>('/api/v1/credentials', { name: 'directory reader', kind: 'LDAP_BIND', matchPatterns: [], settings: { bindDn: LDAP_BIND_DN, baseDn: LDAP_BASE_DN }, secrets: { password: LDAP_BIND_PASSWORD } })).data.id;
        const targetId = (await api.post<{ data: { id: string } }>('/api/v1/discovery/targets', { name: 'directory', addresses: [ADDRESS], methods: ['LDAP'], settings: { LDAP: { verifyCertificate: false } }, credentialIds: [credentialId] })).data.id;
        return scanRepeatedly<RunView>(api, targetId, RUNS, RUN_DEADLINE_MS);
      }),
    );
    const [first, ...rest] = runs as [RunView & { seconds: number }, ...(RunView & { seconds: number })[]];
    const read = reads[0] as (typeof reads)[number];
    const floor = median(floors.map((f) => f.ms));
    const readMs = median(reads.map((r) => r.ms));
    const searchMs = median(reads.map((r) => r.searchMs));
    const firstMs = first.seconds * 1000;
    const rescanMs = median(rest.map((r) => r.seconds)) * 1000;
    const seconds = (ms: number, digits: number) => `${(ms / 1000).toFixed(digits)} s`;
    const ratio = (ms: number) => `${(ms / floor).toFixed(2)}×`;
    writeSection('ldap', `## LDAP discovery (OpenLDAP, ${int(read.entries)} computers)

${machine()} · load average ${load} at the start, ${(os.loadavg()[0] as number).toFixed(1)} at the end

Scale: ${int(COMPUTERS)} computer objects under ou=Bench of the lab's OpenLDAP 2.5 (Debian's slapd, back-mdb, Active Directory's computer class from msuser.schema, in a network namespace of this machine), besides the lab's own ${read.entries - COMPUTERS}: ${int(read.entries)} computers, ${int(read.assets)} assets with the server. Read over LDAPS with a simple bind, the paged results control, pages of ${int(DEFAULT_PAGE_SIZE)} (\`settings.LDAP.pageSize\`'s default), ${COMPUTER_ATTRIBUTES.length} attributes asked for.

| | Time | Pages | Against the floor |
|---|---|---|---|
| Floor: ldapsearch -E pr=${DEFAULT_PAGE_SIZE} of the same entries and attributes over LDAPS (${int((floors[0] as (typeof floors)[number]).entries)} entries, its LDIF read whole), median of ${READS} | ${seconds(floor, 2)} | ${(floors[0] as (typeof floors)[number]).pages} | 1.00× |
| Read alone: certificate checked and pinned, bind, root DSE, the paged search, median of ${READS} | ${seconds(searchMs, 2)} | ${read.pages} | ${ratio(searchMs)} |
| Read alone and mapped to an estate, median of ${READS} | ${seconds(readMs, 2)} | ${read.pages} | ${ratio(readMs)} |
| Whole run through the API, first (creates ${int(first.summary.assetsCreated)} assets) | ${seconds(firstMs, 1)} | as above | ${ratio(firstMs)} |
| Whole run, rescans (nothing changed), median of ${rest.length} | ${seconds(rescanMs, 1)} | as above | ${ratio(rescanMs)} |

The whole runs had \`service.discovery.lease-ms\` at ${LEASE_MS / 60_000} minutes: the load step of a run (identity, graph, facts) reports no progress, and on this shared machine the first load of 10,000 computers outlasted the default 60 s lease once (the run was failed as WORKER_LOST), at the time (the chunked runner merged since renews the run's lease during the load).

A smaller run than the 100,000-asset estate of the sections above: the 10,000-computer directory that issue 39 names, each figure beside the bare paged ldapsearch of the same entries (the floor) in the same run; OpenLDAP stands in for Active Directory (the lab's Samba AD DC reads the same way, with fewer computers).
`);
  } finally {
    await lab.stop();
  }
}
