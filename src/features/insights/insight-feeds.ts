// The registry of insight feeds: the one place that names them. GET /insights lists it, GET
// /insights/{feed} runs one of it, the web UI's Insights page shows what it lists. A feed is one
// statement in its own file, on the store that holds its data: a Cypher statement on Neo4j
// (cypher/<statement>.cypher) or a SQL statement on PostgreSQL (sql/<statement>.sql).
//
// A statement receives the feed's parameters (validated, defaults applied), its fixed inputs and
// `limit`, and returns at most `limit` rows, best first, each with `assetIds` (the assets it names,
// in a meaningful order) and `evidence` (an object of the fields documented for that feed in api.yaml).
// SQL statements name their parameters as :name (knex named bindings).
import { GRAPH_TYPES, parentRule } from '../inventory/asset-taxonomy.js';
import { endOfLifeCatalogue } from './end-of-life-catalogue.js';

export type FeedStore = 'neo4j' | 'postgres';

export interface FeedParameter {
  name: string;
  type: 'integer' | 'date-time';
  description: string;
  /** An integer, or for a date-time the number of hours before now. */
  default: number;
  minimum?: number;
  maximum?: number;
}

export interface InsightFeed {
  name: string;
  title: string;
  description: string;
  store: FeedStore;
  /** The statement's file below cypher/ or sql/, without extension. */
  statement: string;
  parameters: FeedParameter[];
  /** Values the statement needs beside the parameters (a catalogue, the parent rules). */
  inputs?: () => Record<string, unknown>;
}

export const DEFAULT_INSIGHT_LIMIT = 50;
export const MAX_INSIGHT_LIMIT = 500;

const since = (meaning: string): FeedParameter => ({
  name: 'since',
  type: 'date-time',
  description: `${meaning} Default: 24 hours before now.`,
  default: 24,
});

const withinDays: FeedParameter = {
  name: 'withinDays',
  type: 'integer',
  description: 'Also list what reaches its end of life within this many days (reason NEAR_END_OF_LIFE). Default 0: only what is past it.',
  default: 0,
  minimum: 0,
  maximum: 3650,
};

/**
 * The fact sources that saw an asset on the network itself: a port or an echo answered (sweep), a
 * login (ssh, snmp), a name given to an address that answered (dns), an active lease (dhcp). A
 * manager's or a directory's word (vcenter, ldap, an import) is no sighting.
 */
export const NETWORK_SOURCES = ['sweep', 'ssh', 'snmp', 'dns', 'dhcp', 'fingerprint'];

/** The types a directory holds computer objects for (and an endpoint not yet known to be one). */
const DIRECTORY_TYPES = ['PHYSICAL_HOST', 'SERVER', 'VM', 'HYPERVISOR', 'UNKNOWN_ENDPOINT'];

const networkDays = (meaning: string, fallback: number): FeedParameter => ({ name: 'days', type: 'integer', description: `${meaning} Default ${fallback}.`, default: fallback, minimum: 1, maximum: 3650 });

/** Per graph type with a parent rule (docs/interface.md §2.4), the rule: the orphan feed checks each. */
function parentRules(): Record<string, unknown>[] {
  return GRAPH_TYPES.flatMap((type) => {
    const rule = parentRule(type);
    return rule ? [{ type, via: rule.via, direction: rule.direction, parentKinds: rule.parentKinds }] : [];
  });
}

export const INSIGHT_FEEDS: InsightFeed[] = [
  {
    name: 'stale-assets',
    title: 'Stale assets',
    description: 'Assets not observed for `days` days or more (any status but DECOMMISSIONED), the longest unseen first.',
    store: 'neo4j',
    statement: 'insights/find-stale-assets',
    parameters: [{ name: 'days', type: 'integer', description: 'How many days without an observation make an asset stale. Default 7.', default: 7, minimum: 1, maximum: 3650 }],
  },
  {
    name: 'scan-failures',
    title: 'Assets never scanned or failing scans',
    description: 'Scannable assets (hosts, network devices, printers, IoT devices, unknown endpoints) that no discovery run ever targeted (NEVER_SCANNED: seen by an import, a sweep or a neighbour only), and those whose last `failures` scans or more failed in a row (FAILING). FAILING first, most failures first.',
    store: 'neo4j',
    statement: 'insights/find-scan-failures',
    parameters: [{ name: 'failures', type: 'integer', description: 'How many consecutive failed scans make an asset FAILING. Default 3.', default: 3, minimum: 1, maximum: 1000 }],
  },
  {
    name: 'duplicate-candidates',
    title: 'Duplicate candidates',
    description: 'Groups of two or more assets (not DECOMMISSIONED) that share a serial number, a MAC address or a host name (case-insensitive), which identity reconciliation kept apart: likely one device recorded twice. Largest groups first.',
    store: 'neo4j',
    statement: 'insights/find-duplicate-candidates',
    parameters: [],
  },
  {
    name: 'unmanaged-port-endpoints',
    title: 'Unmanaged endpoints on switch ports',
    description: 'Endpoints that a switch forwarding table (FDB) places on a switch port and that no discovery run ever scanned successfully: known by their MAC address only (from an import or another device), not managed. Discovery keeps the forwarding-table MACs that match a known interface (as FDB interface connections), not the others, so an endpoint that matches no asset at all cannot be listed.',
    store: 'postgres',
    statement: 'insights/find-unmanaged-port-endpoints',
    parameters: [],
  },
  {
    name: 'new-assets',
    title: 'New assets',
    description: 'Assets first seen at or after `since`, the newest first.',
    store: 'neo4j',
    statement: 'insights/find-new-assets',
    parameters: [since('Only assets first seen at or after this time.')],
  },
  {
    name: 'new-listening-services',
    title: 'New or unexpected listening services',
    description: 'Ports that discovered services listen on, when the service was first seen at or after `since` (NEW) or when fewer than `uncommonBelow` assets of the estate listen on that protocol and port (UNCOMMON). NEW first, newest first; then the rarest ports.',
    store: 'postgres',
    statement: 'insights/find-new-listening-services',
    parameters: [
      since('A service first seen at or after this time is NEW.'),
      { name: 'uncommonBelow', type: 'integer', description: 'A protocol and port that fewer than this many assets listen on is UNCOMMON. Default 2 (a port only one asset opens); 1 turns UNCOMMON off.', default: 2, minimum: 1, maximum: 100000 },
    ],
  },
  {
    name: 'ssh-host-keys',
    title: 'Changed or shared SSH host keys',
    description: 'SSH host keys that changed since they were pinned at first contact (CHANGED: discovery refused to log in, error HOST_KEY_CHANGED), and keys that several addresses present (SHARED: cloned images, or one host under several addresses). CHANGED first, latest first; then the most shared keys.',
    store: 'postgres',
    statement: 'insights/find-ssh-host-key-findings',
    parameters: [],
  },
  {
    name: 'end-of-life-os',
    title: 'End-of-life operating systems',
    description: 'Assets whose operating system (osName and osVersion) is a release past its end of life in the catalogue catalogues/end-of-life.json (dated, with its sources), the longest past first.',
    store: 'neo4j',
    statement: 'insights/find-end-of-life-os',
    parameters: [withinDays],
    inputs: () => ({ catalogue: endOfLifeCatalogue().operatingSystems }),
  },
  {
    name: 'end-of-life-software',
    title: 'End-of-life software',
    description: 'Installed software packages whose version is a release past its end of life in the catalogue catalogues/end-of-life.json (dated, with its sources), the longest past first.',
    store: 'postgres',
    statement: 'insights/find-end-of-life-software',
    parameters: [withinDays],
    inputs: () => ({ catalogue: JSON.stringify(endOfLifeCatalogue().software) }),
  },
  {
    name: 'orphan-assets',
    title: 'Orphan assets',
    description: 'Assets (not DECOMMISSIONED) of a child type that have no parent by the parent rules (docs/interface.md, §2.4): no active relationship of the rule to an asset of an admitted type or category.',
    store: 'neo4j',
    statement: 'insights/find-orphan-assets',
    parameters: [],
    inputs: () => ({ rules: parentRules() }),
  },
  {
    name: 'relationships-to-retired-assets',
    title: 'Relationships to retired assets',
    description: 'Active relationships with an end that is retired (DECOMMISSIONED or INACTIVE): the relationship outlives what it relates.',
    store: 'neo4j',
    statement: 'insights/find-relationships-to-retired-assets',
    parameters: [],
  },
  {
    name: 'unknown-top-talkers',
    title: 'Top talkers that are unknown endpoints',
    description: 'Addresses that sent or received the most bytes in flows between `from` and `to` (from the 5-minute rollup; bytes and packets are estimates, sampling applied) and that no asset holds: neither an address of a discovered interface nor an IP address fact of an asset. Most bytes first.',
    store: 'postgres',
    statement: 'insights/find-unknown-top-talkers',
    parameters: [
      { name: 'from', type: 'date-time', description: 'Start of the window (included). Default: 1 hour before now.', default: 1 },
      { name: 'to', type: 'date-time', description: 'End of the window (excluded). Default: now.', default: 0 },
    ],
  },
  {
    name: 'directory-not-seen',
    title: 'In the directory, not seen on the network',
    description: 'Computers that the latest complete read of a directory (LDAP discovery: Active Directory, OpenLDAP) lists and that no network source (sweep, SSH, SNMP, DNS, DHCP) has seen for `days` days or more, or ever: retired machines whose accounts stay, or machines that discovery does not reach. Never seen first, then the longest unseen.',
    store: 'postgres',
    statement: 'insights/find-directory-not-seen',
    parameters: [networkDays('How many days without a sighting on the network make a directory computer listed.', 30)],
    inputs: () => ({ networkSources: JSON.stringify(NETWORK_SOURCES) }),
  },
  {
    name: 'unmanaged-devices',
    title: 'Seen on the network, not in the directory',
    description: 'Hosts and unknown endpoints that a network source (sweep, SSH, SNMP, DNS, DHCP) saw within the last `days` days and that the latest complete read of no directory lists: unmanaged devices. Lists nothing until a directory has been read (LDAP discovery). Network devices, printers, IoT devices and containers are left out (no directory holds them). The latest seen first.',
    store: 'postgres',
    statement: 'insights/find-unmanaged-devices',
    parameters: [networkDays('How recent a sighting on the network must be for a device to be listed.', 7)],
    inputs: () => ({ networkSources: JSON.stringify(NETWORK_SOURCES), directoryTypes: JSON.stringify(DIRECTORY_TYPES) }),
  },
];
