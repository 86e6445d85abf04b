// FINGERPRINT: credential-free identification of what answers at an address, with Debian's nmap as
// the engine (nmap-run.ts: service and version detection, and where the worker is root a SYN scan,
// SNMP's and CoAP's UDP ports and OS detection; its XML report read by nmap-report.ts) and our own
// rules (device-class.ts): the device class (PRINTER, NETWORK_DEVICE, IOT_DEVICE, HOST) with its
// confidence and the evidence that decided it, the OS family, and a DISCOVERED_SERVICE row per open
// port with the product and version that answer there. They are facts of source fingerprint on the
// asset that holds the address (or a new one), ranked below SSH and SNMP: a fingerprint never
// overrides what a credentialed source said, and its services load only where no method of the run
// read the host's own. Only a complete report loads anything: a time-out, a cancel or a report over
// the size limit changes and retires nothing; more open ports than kept loads the first, retiring none.
import net from 'node:net';
import { z } from 'zod';
import type { AddressFactsEntry, ConnectorResult } from '../../host-observation.js';
import type { RunError } from '../../run-record.js';
import type { CollectRequest, ConnectorEnvironment, InventoryConnector } from '../connector.js';
import { ASSET_TYPE_OF, classify, servicesOf } from './device-class.js';
import { FINGERPRINT_ERRORS, type FingerprintErrorCode } from './fingerprint-errors.js';
import { MAX_PORTS, parseNmapReport } from './nmap-report.js';
import { nmapServiceTable, runNmap, type NmapRun } from './nmap-run.js';

const PORT = z.number().int().min(1).max(65535);

const settings = z
  .strictObject({
    ports: z.array(PORT).min(1).max(4096).optional().describe('The TCP ports to probe (DEFAULT_TCP_PORTS when neither this nor topPorts is given)'),
    topPorts: z.number().int().min(1).max(4096).optional().describe("nmap's N most common TCP ports, instead of a list"),
    udpPorts: z.array(PORT).max(32).optional().describe('The UDP ports to probe where the worker is root (SNMP 161 and CoAP 5683 by default)'),
    intensity: z.number().int().min(0).max(9).optional().describe("nmap's version intensity, 0 (light) to 9 (every probe); 7, nmap's own, by default"),
    osDetection: z.boolean().optional().describe("nmap's OS detection where the worker is root (true by default)"),
    timeoutMs: z.number().int().min(1000).max(3_600_000).optional().describe("How long nmap may take with one address (ms; 120,000 by default; the host's time-out bounds it too)"),
    maxHosts: z.number().int().min(1).max(65_536).optional().describe('Addresses fingerprinted per run at most (256 by default); the others get HOST_LIMIT_REACHED'),
  })
  .refine((s) => !(s.ports && s.topPorts), { message: 'give ports or topPorts, not both', path: ['topPorts'] });

/** Services that tell a device's class, and the usual ones of hosts and appliances. */
export const DEFAULT_TCP_PORTS = [
  21, 22, 23, 25, 53, 80, 81, 110, 111, 135, 139, 143, 199, 443, 445, 502, 515, 554, 587, 631, 993, 995, 1433, 1521, 1883, 2049, 3306, 3389, 5000, 5432, 5900, 6379, 8000, 8080, 8443, 8883, 9100, 9200, 27017,
];
export const DEFAULT_UDP_PORTS = [161, 5683];
const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_HOSTS = 256;

type Settings = z.infer<typeof settings>;

const FAILURES: Record<Exclude<NmapRun, { xml: string }>['failure'], FingerprintErrorCode | undefined> = {
  NOT_INSTALLED: 'NMAP_NOT_INSTALLED',
  TIMEOUT: 'FINGERPRINT_TIMEOUT',
  TOO_LARGE: 'FINGERPRINT_OUTPUT_TOO_LARGE',
  FAILED: 'FINGERPRINT_FAILED',
  // A cancelled run loads nothing and records nothing.
  CANCELLED: undefined,
};

export async function collectFingerprint({ address, settings: targetSettings, deadline, probe, signal }: CollectRequest, { config }: ConnectorEnvironment): Promise<ConnectorResult> {
  const own: Settings = settings.parse(targetSettings);
  const record = (code: FingerprintErrorCode, message: string, stage = 'collect'): RunError => ({ address, method: 'FINGERPRINT', stage, code, message });
  // The address is handed to nmap: an IP address only (the runner resolves names), never an option.
  if (!net.isIP(address)) return { errors: [record('FINGERPRINT_FAILED', `${address} is not an IP address.`)] };
  // The run's own probe says whether anything is there; nmap then skips its host discovery (-Pn).
  if (!(await probe(address))) return { errors: [record('HOST_UNREACHABLE', `Nothing answered at ${address} (no port of the sweep, no echo); it was not fingerprinted.`, 'connect')] };
  const table = await nmapServiceTable();
  const run = await runNmap({
    program: config.discoveryNmapPath,
    address,
    tcpPorts: own.ports ?? (own.topPorts ? table.topTcpPorts.slice(0, own.topPorts) : DEFAULT_TCP_PORTS),
    udpPorts: own.udpPorts ?? DEFAULT_UDP_PORTS,
    intensity: own.intensity ?? 7,
    osDetection: own.osDetection ?? true,
    timeoutMs: Math.max(1000, Math.min(own.timeoutMs ?? DEFAULT_TIMEOUT_MS, deadline - Date.now())),
    ...(signal ? { signal } : {}),
  });
  if ('failure' in run) {
    const code = FAILURES[run.failure];
    return { errors: code ? [record(code, `${run.message} Nothing of this fingerprint is loaded.`)] : [] };
  }
  const host = parseNmapReport(run.xml);
  if (!host) return { errors: [record('FINGERPRINT_FAILED', "nmap's report is not its XML. Nothing of this fingerprint is loaded.")] };
  if (host.timedOut) return { errors: [record('FINGERPRINT_TIMEOUT', "nmap's host time-out ended its scan of the address. Nothing of this fingerprint is loaded.")] };
  if (host.state !== 'up') return { errors: [record('HOST_UNREACHABLE', `nmap found nothing up at ${address}.`, 'connect')] };

  const errors = host.truncated ? [record('FINGERPRINT_OUTPUT_TOO_LARGE', `More than ${MAX_PORTS} ports answered; the first ${MAX_PORTS} are loaded and no service of the address is retired.`)] : [];
  const found = classify(host);
  // The TCP ports nmap found open: more than the sweep probes (a printer's 631), and ranked above its word.
  const openTcp = host.ports.filter((p) => p.protocol === 'tcp').map((p) => p.port);
  const attributes: AddressFactsEntry['attributes'] = {
    ...(openTcp.length ? { openPorts: openTcp.join(',') } : {}),
    ...(found.deviceClass ? { deviceClass: found.deviceClass, deviceClassConfidence: found.confidence as number } : {}),
    ...(found.osFamily ? { osFamily: found.osFamily } : {}),
    ...(found.osName ? { osName: found.osName } : {}),
  };
  const entry: AddressFactsEntry = {
    address,
    ...(host.mac ? { macAddresses: [host.mac] } : {}),
    ...(found.deviceClass ? { assetType: ASSET_TYPE_OF[found.deviceClass] } : {}),
    attributes,
    // What decided it, and what lost, as provenance shows it (an evidence-only fact).
    evidence: {
      fingerprintEvidence: {
        deviceClass: found.deviceClass ?? null,
        confidence: found.confidence ?? null,
        evidence: found.evidence,
        against: found.against,
        os: found.osFamily || found.osName ? { family: found.osFamily ?? null, name: found.osName ?? null, from: found.osEvidence ?? null } : null,
      },
    },
    services: { rows: servicesOf(host, (protocol, port) => table.names.get(`${protocol}/${port}`)), complete: !host.truncated },
  };
  return { addressFacts: { method: 'FINGERPRINT', addresses: [entry] }, errors };
}

export const fingerprintConnector = {
  method: 'FINGERPRINT',
  stage: 'inventory',
  enabledByDefault: false,
  // Below SNMP (40) and SSH (50): a guess from the outside never overrides what a device or host
  // said of itself; above DNS (30), DHCP (25) and a sweep (10), which never classify.
  factRank: 32,
  description: 'Credential-free identification with nmap: the services that answer with their product and version, and the device class (printer, network device, IoT device, host and its OS family) with its confidence and evidence.',
  credentialKinds: [],
  credentialsOptional: true,
  settings,
  errors: FINGERPRINT_ERRORS,
  // nmap finds the ports itself: tried at every address that answered the sweep (or every address named).
  triedWhere: 'always',
  silentCodes: ['HOST_UNREACHABLE'],
  retires: [],
  maxHostsPerRun: (s: Record<string, unknown>) => (s as Settings).maxHosts ?? DEFAULT_MAX_HOSTS,
  collect: collectFingerprint,
} as const satisfies InventoryConnector<typeof FINGERPRINT_ERRORS>;
