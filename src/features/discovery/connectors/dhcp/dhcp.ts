// DHCP: the leases of an ISC Kea DHCPv4 server, read from its control agent (kea-ctrl-agent) at
// the target's address and port with lease4-get-page (the lease_cmds hook library), in pages,
// with an HTTP_BASIC credential where the agent asks for one (each in turn until it accepts one;
// without one, none is sent). Each client with an active lease becomes facts of source dhcp on the
// asset that holds its MAC or its address, or a new UNKNOWN_ENDPOINT: its MAC, its addresses, the
// host name it gave, and a fact per lease (dhcpLease:<address>), which keeps its MAC-to-address
// history for as long as facts are kept (service.aging.inactive-after-days). Expired leases are
// history only (dhcp-leases.ts). A lease that does not validate is left out and reported
// (DHCP_LEASE_INVALID); the others load. The leases are loaded only from a read of every lease:
// a page failed, the time-out or maxLeases reached makes the read partial, and a partial read
// loads nothing (a client's addresses from part of its leases would replace those of all of them),
// so it changes and retires nothing. DHCP retires nothing: a client that left ages out with its facts.
import { z } from 'zod';
import type { AddressFacts, ConnectorResult } from '../../host-observation.js';
import type { RunError } from '../../run-record.js';
import type { CollectRequest, ConnectorEnvironment, InventoryConnector } from '../connector.js';
import { DHCP_ERRORS, type DhcpErrorCode } from './dhcp-errors.js';
import { clientFacts, parseLease, type Lease } from './dhcp-leases.js';
import { readLeases } from './kea-api.js';

const settings = z.strictObject({
  maxLeases: z.number().int().min(1).max(1_000_000).optional().describe('Leases read at most, active, expired and declined together (100,000 by default); more is a partial read'),
  pageSize: z.number().int().min(1).max(10_000).optional().describe('Leases asked for per lease4-get-page request (1,000 by default)'),
  timeoutMs: z.number().int().min(100).max(120_000).optional().describe('How long the connect and each request may take (ms; the connect time-out of the service by default)'),
});

export const DEFAULT_MAX_LEASES = 100_000;
export const DEFAULT_PAGE_SIZE = 1000;
/** Invalid leases reported one by one; one more record counts the rest. */
const INVALID_REPORTED = 20;
const CONNECT_CODES = new Set<DhcpErrorCode>(['CONNECTION_REFUSED', 'CONNECTION_TIMEOUT', 'HOST_UNREACHABLE', 'DNS_FAILURE']);

/** The leases that validate, and why the others did not (declined ones are no client's, and not counted). */
export function validLeases(raw: unknown[]): { leases: Lease[]; invalid: { invalid: string; address?: string }[] } {
  const leases: Lease[] = [];
  const invalid: { invalid: string; address?: string }[] = [];
  for (const entry of raw) {
    const parsed = parseLease(entry);
    if ('lease' in parsed) leases.push(parsed.lease);
    else if ('invalid' in parsed) invalid.push(parsed);
  }
  return { leases, invalid };
}

export async function collectDhcp({ address, credentials, port, settings: targetSettings, deadline }: CollectRequest, { config }: ConnectorEnvironment): Promise<ConnectorResult> {
  const own = settings.parse(targetSettings);
  const record = (code: DhcpErrorCode, message: string, stage: string, at = address): RunError => ({ address: at, method: 'DHCP', stage, code, message });
  const read = await readLeases(
    { host: address, port, timeoutMs: own.timeoutMs ?? config.discoveryConnectTimeoutMs, deadline },
    credentials,
    { pageSize: own.pageSize ?? DEFAULT_PAGE_SIZE, maxLeases: own.maxLeases ?? DEFAULT_MAX_LEASES },
  );
  const credential = read.credentialId ? { credentialId: read.credentialId } : {};
  if (read.failure) {
    const { code, message } = read.failure;
    const stage = code === 'DHCP_AUTH_FAILED' ? 'authenticate' : CONNECT_CODES.has(code) ? 'connect' : 'collect';
    const error = record(code, read.pages ? `${message} No leases of this scan are loaded.` : message, stage);
    // The agent answered (a page came): a partial read, which loads nothing.
    return read.pages ? { addressFacts: { method: 'DHCP', addresses: [] }, errors: [error], ...credential } : { errors: [error] };
  }
  const { leases, invalid } = validLeases(read.leases);
  // Each bad lease at its own address (the server's scan is not PARTIAL for a client's lease), the first ones; then their count.
  const errors: RunError[] = invalid.slice(0, INVALID_REPORTED).map((bad) => record('DHCP_LEASE_INVALID', `${bad.invalid}; it was left out.`, 'collect', bad.address));
  if (invalid.length > INVALID_REPORTED) {
    errors.push(record('DHCP_LEASE_INVALID', `${invalid.length} of the ${read.leases.length} leases were left out in all; the first ${INVALID_REPORTED} are reported one by one.`, 'collect'));
  }
  const addressFacts: AddressFacts = { method: 'DHCP', addresses: clientFacts(leases, Date.now() / 1000) };
  return { addressFacts, errors, ...credential };
}

export const dhcpConnector = {
  method: 'DHCP',
  stage: 'inventory',
  enabledByDefault: false,
  // Below DNS (30): a name the client gives itself, unchecked, is weaker than one an administrator
  // gave in a zone; above an import that does not own the field (20).
  factRank: 25,
  description: "The clients of an ISC Kea DHCPv4 server, read from its control agent (lease4-get-page): each active client's MAC, addresses and host name, and its leases as history, on the assets at their addresses.",
  credentialKinds: ['HTTP_BASIC'],
  credentialsOptional: true,
  defaultPort: 8000,
  settings,
  errors: DHCP_ERRORS,
  triedWhere: 'port-answered',
  silentCodes: ['CONNECTION_REFUSED'],
  retires: [],
  collect: collectDhcp,
} as const satisfies InventoryConnector<typeof DHCP_ERRORS>;
