// DNS: the zones a target names, transferred (AXFR over TCP) from the DNS server at the target's
// address and port, with a TSIG key where a DNS_TSIG credential is offered (each in turn until the
// server accepts one; without one, unsigned). Each address of an A or AAAA record is probed with
// the run's sweep: one that answers gets its names (its PTR name, looked up at the same server, or
// its own forward name, as its FQDN; all of them as dnsNames) as facts of source dns, on the asset
// that holds the address or a new UNKNOWN_ENDPOINT; one where nothing answers is reported
// (DNS_RECORD_NOT_ALIVE). The names are loaded only from a read of every zone in full: a zone
// refused, cut short, truncated or unverified makes the read partial, and a partial read loads no
// names (an address's names from part of its zones would replace those of all of them), so it
// changes and retires nothing. DNS retires nothing: a name that left the zones ages out with the
// facts (service.aging.inactive-after-days).
import { promises as dnsPromises } from 'node:dns';
import net from 'node:net';
import { z } from 'zod';
import type { RevealedCredential } from '../../../credentials/credential-service.js';
import type { AddressFacts, ConnectorResult } from '../../host-observation.js';
import type { RunError } from '../../run-record.js';
import type { CollectRequest, ConnectorEnvironment, InventoryConnector } from '../connector.js';
import { DNS_ERRORS, type DnsErrorCode } from './dns-errors.js';
import type { DnsRecord } from './dns-message.js';
import { addressNameFacts, namedAddresses, ptrNamesByReverseName, reverseName, sharedNames } from './dns-names.js';
import { transferZone, type TransferFailure, type ZoneTransfer } from './dns-transfer.js';
import type { TsigKey } from './dns-tsig.js';

const ZONE = z
  .string()
  .max(253)
  .regex(/^([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\.)*[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\.?$/, 'a DNS zone name such as example.com');

const settings = z.strictObject({
  zones: z.array(ZONE).min(1).max(100).describe('The zones to transfer (AXFR) from the server at the target address'),
  reverseLookups: z.boolean().optional().describe('Look up the PTR name of each address that answers, at the same server (true by default)'),
  timeoutMs: z.number().int().min(100).max(120_000).optional().describe('How long the connect and each wait for data of a transfer may take (ms; the connect time-out of the service by default)'),
  maxRecords: z.number().int().min(1).max(1_000_000).optional().describe('Records read at most, all zones together (10,000 by default); more is a partial read'),
});

const DEFAULT_MAX_RECORDS = 10_000;
/** Addresses probed, and PTR names looked up, at the same time. */
const PROBE_CONCURRENCY = 16;
// Failures that no other key can mend, and that end the read of every zone.
const FINAL = new Set<DnsErrorCode>(['CONNECTION_REFUSED', 'CONNECTION_TIMEOUT', 'HOST_UNREACHABLE', 'HOST_TIMEOUT']);
const CONNECT_CODES = new Set<DnsErrorCode>(['CONNECTION_REFUSED', 'CONNECTION_TIMEOUT', 'HOST_UNREACHABLE', 'DNS_FAILURE']);
const NAME = /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/;

function tsigKey(credential: RevealedCredential): TsigKey | undefined {
  const secret = Buffer.from(credential.secrets.secret ?? '', 'base64');
  return secret.length ? { name: String(credential.settings.keyName), secret } : undefined;
}

async function eachBounded<T>(items: T[], deadline: number, work: (item: T) => Promise<void>): Promise<T[]> {
  const left: T[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(PROBE_CONCURRENCY, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      if (Date.now() >= deadline) left.push(item);
      else await work(item);
    }
  }));
  return left;
}

/** A zone read with each key in turn (or with none): the first that is not refused. */
async function readZone(zone: string, keys: { credential: RevealedCredential; key: TsigKey }[], options: Omit<Parameters<typeof transferZone>[1], 'key'>): Promise<ZoneTransfer & { credentialId?: string }> {
  if (keys.length === 0) return transferZone(zone, options);
  const refused: string[] = [];
  for (const { credential, key } of keys) {
    const read = await transferZone(zone, { ...options, key });
    if (read.failure?.code !== 'DNS_TSIG_REFUSED') return { ...read, credentialId: credential.id };
    refused.push(`"${credential.name}": ${read.failure.message}`);
  }
  return { zone, records: [], complete: false, failure: { code: 'DNS_TSIG_REFUSED', message: `Every DNS_TSIG credential offered was refused for ${zone}: ${refused.join(' ')}`.slice(0, 1000) } };
}

export async function collectDns({ address, credentials, port, settings: targetSettings, deadline, probe }: CollectRequest, { config }: ConnectorEnvironment): Promise<ConnectorResult> {
  const own = settings.parse(targetSettings);
  const record = (code: DnsErrorCode, message: string, at: string = address, stage = 'collect'): RunError => ({ address: at, method: 'DNS', stage, code, message });
  const errors: RunError[] = [];
  const keys = credentials.flatMap((credential) => {
    const key = tsigKey(credential);
    if (!key) errors.push(record('DNS_TSIG_REFUSED', `Credential "${credential.name}" has no base64 secret; it was not offered.`, address, 'authenticate'));
    return key ? [{ credential, key }] : [];
  });
  if (credentials.length && keys.length === 0) return { errors };
  const options = { host: address, port, timeoutMs: own.timeoutMs ?? config.discoveryConnectTimeoutMs, deadline, maxRecords: own.maxRecords ?? DEFAULT_MAX_RECORDS };

  const records: DnsRecord[] = [];
  let credentialId: string | undefined;
  let read = 0;
  let partial = false;
  for (const zone of [...new Set(own.zones.map((z) => z.toLowerCase().replace(/\.$/, '')))]) {
    // maxRecords bounds the whole read, every zone's records together.
    const left = options.maxRecords - records.length;
    if (left <= 0) {
      errors.push(record('DNS_ZONE_TRUNCATED', `The zones before ${zone} brought the ${options.maxRecords} records of settings.DNS.maxRecords; ${zone} was not read. No names of this scan are loaded.`, address, `collect:${zone}`));
      partial = true;
      break;
    }
    const transfer = await readZone(zone, keys, { ...options, maxRecords: left });
    if (transfer.failure) {
      const failure: TransferFailure = transfer.failure;
      const stage = failure.code === 'DNS_TSIG_REFUSED' ? 'authenticate' : CONNECT_CODES.has(failure.code) ? 'connect' : `collect:${zone}`;
      errors.push(record(failure.code, `${failure.message} No names of this scan are loaded.`, address, stage));
      partial = true;
      if (FINAL.has(failure.code)) break;
    }
    if (transfer.records.length || !transfer.failure) read++;
    records.push(...transfer.records);
    credentialId ??= transfer.credentialId;
  }
  if (read === 0) return { errors };

  // Each address the zones name: probed, and named where something answers.
  const named = namedAddresses(records);
  const shared = sharedNames(named);
  const alive = new Set<string>();
  const unprobed = await eachBounded(named, deadline, async ({ address: at }) => {
    if (await probe(at)) alive.add(at);
  });
  for (const n of named) {
    if (alive.has(n.address) || unprobed.includes(n)) continue;
    errors.push(record('DNS_RECORD_NOT_ALIVE', `The records of ${[...n.forward, ...n.aliases].join(', ').slice(0, 400)} point at ${n.address}, where nothing answered the probe.`, n.address));
  }
  if (unprobed.length) {
    errors.push(record('HOST_TIMEOUT', `The per-host time-out ended before ${unprobed.length} of the ${named.length} addresses named could be probed. No names of this scan are loaded.`));
    partial = true;
  }

  const ptr = ptrNamesByReverseName(records);
  const living = named.filter((n) => alive.has(n.address));
  if ((own.reverseLookups ?? true) && !partial) {
    const resolver = new dnsPromises.Resolver({ timeout: options.timeoutMs, tries: 1 });
    resolver.setServers([net.isIPv6(address) ? `[${address}]:${port}` : `${address}:${port}`]);
    await eachBounded(living.filter((n) => !ptr.has(reverseName(n.address))), deadline, async ({ address: at }) => {
      // An address without a PTR name (NXDOMAIN, or a server that does not serve its reverse zone) keeps its forward name.
      const names = await resolver.reverse(at).catch(() => [] as string[]);
      const clean = names.map((n) => n.toLowerCase().replace(/\.$/, '')).filter((n) => n.length <= 253 && NAME.test(n));
      if (clean.length) ptr.set(reverseName(at), clean);
    });
  }
  const addressFacts: AddressFacts = {
    method: 'DNS',
    addresses: partial ? [] : living.map((n) => ({ address: n.address, ...addressNameFacts(n, ptr.get(reverseName(n.address)) ?? [], shared) })),
  };
  return { addressFacts, errors, ...(credentialId ? { credentialId } : {}) };
}

export const dnsConnector = {
  method: 'DNS',
  stage: 'inventory',
  enabledByDefault: false,
  // Below SNMP and SSH (a name an administrator gave is weaker than the host's own word), above an import that does not own the field.
  factRank: 30,
  description: "The names of the zones a DNS server transfers (AXFR, with an optional TSIG key), on the assets at their addresses; records that point at nothing alive are reported.",
  credentialKinds: ['DNS_TSIG'],
  credentialsOptional: true,
  defaultPort: 53,
  settings,
  errors: DNS_ERRORS,
  triedWhere: 'port-answered',
  silentCodes: ['CONNECTION_REFUSED'],
  retires: [],
  collect: collectDns,
} as const satisfies InventoryConnector<typeof DNS_ERRORS>;
