// What a connector observed of one address: the "normalise" step's output, before identity is
// reconciled. Connectors fill it from device output (untrusted text, already cleaned by
// untrusted-text.ts); the runner merges the observations of one address and loads them through
// the import path. `complete` names the scopes observed in full: only those may retire data.
// A connector that reads a whole estate from one address (a vCenter) answers an EstateObservation;
// one that reads facts of other addresses (DNS: the names a zone gives them) answers AddressFacts,
// and so does one that cannot tell which asset holds its own address (FINGERPRINT: a printer's
// facts go on whatever asset holds the address, a host SSH knows too).
// The connectors import this module and the registry imports them: nothing here imports the registry.
import type { AssetType } from '../inventory/asset-taxonomy.js';
import type { RelationshipType } from '../inventory/relationship-types.js';
import type { FdbEntryInput, NeighborEntry } from '../inventory/sub-record-loader.js';
import type { InterfaceRow, PackageRow, ProcessRow, ServiceRow } from '../inventory/sub-record-rows.js';
import type { RunError } from './run-record.js';

/** A method's name as the registry (connectors/registry.ts) declares it: a string here, so that no cycle runs through the registry. */
export type ScanMethod = string;

/** The asset types a connector may classify a host as. */
export type ObservedType = Extract<AssetType, 'PHYSICAL_HOST' | 'VM' | 'CONTAINER' | 'SERVER' | 'NETWORK_DEVICE' | 'PRINTER' | 'IOT_DEVICE'>;

export type ObservedPackage = Omit<PackageRow, 'assetId'>;
export type ObservedService = Omit<ServiceRow, 'assetId'>;
/** A process; `application` names the catalogue entry it belongs to, if any. */
export type ObservedProcess = Omit<ProcessRow, 'assetId' | 'softwareAssetId'> & { application?: string };
export type ObservedInterface = Omit<InterfaceRow, 'assetId'>;
export type ObservedNeighbor = Omit<NeighborEntry, 'asset' | 'remoteAsset'>;
export type ObservedFdbEntry = Omit<FdbEntryInput, 'asset'>;

/** An established TCP connection seen on the host (ss), from its local port to a remote address. */
export interface ObservedConnection {
  localAddress: string;
  localPort: number;
  remoteAddress: string;
  remotePort: number;
  processName?: string;
}

/** An application the signature catalogue recognised (becomes a SOFTWARE asset RUNS_ON the host). */
export interface ObservedApplication {
  /** Catalogue id, stable: the key of the SOFTWARE asset under its host. */
  id: string;
  name: string;
  vendor?: string;
  version?: string;
  listenPorts: number[];
}

// facts: the host's own facts (type, names, hardware, OS and other attributes) were read.
export const OBSERVED_SCOPES = ['facts', 'software', 'processes', 'services', 'interfaces', 'neighbors', 'connections', 'fdb'] as const;
export type ObservedScope = (typeof OBSERVED_SCOPES)[number];

/** What a connector read of one asset's names, make and addresses, and its other facts. */
export interface ObservedFacts {
  hostname?: string;
  fqdn?: string;
  vendor?: string;
  model?: string;
  serialNumber?: string;
  macAddresses: string[];
  ipAddresses: string[];
  /** Type fields and extra facts: osName, osVersion, kernel, cpuCount, memoryMb, sysDescr, sysObjectId, ... */
  attributes: Record<string, string | number | boolean>;
}

export interface HostObservation extends ObservedFacts {
  address: string;
  method: ScanMethod;
  assetType: ObservedType;
  software: ObservedPackage[];
  processes: ObservedProcess[];
  services: ObservedService[];
  interfaces: ObservedInterface[];
  neighbors: ObservedNeighbor[];
  fdb: ObservedFdbEntry[];
  connections: ObservedConnection[];
  applications: ObservedApplication[];
  /** Scopes read in full; a scope left out (a command failed or timed out) keeps its old data. */
  complete: Set<ObservedScope>;
}

/** One asset of an estate; `key` is unique within the estate. */
export interface EstateAsset extends ObservedFacts {
  key: string;
  assetType: AssetType;
  displayName: string;
}

/** A process of an estate's asset (a container's), by the asset's key. */
export type EstateProcess = Omit<ObservedProcess, 'application'> & { asset: string };

/** A discovered service of an estate's asset (a cluster's Service or Ingress), by the asset's key. */
export type EstateService = ObservedService & { asset: string };

/** The assets and relationships a connector read from one address (a manager and what it manages). */
export interface EstateObservation {
  method: ScanMethod;
  /** Names what the connector read (for example VCENTER:10.0.0.5:443): a complete read retires the assets it no longer shows. */
  scope: string;
  /** The key of the asset that stands for the address itself. */
  root: string;
  /**
   * The root is the host at the address (a hypervisor or container host read over SSH): it is
   * loaded as that host, one asset with what SSH saw of it, its facts a set of their own.
   */
  rootIsHost?: boolean;
  assets: EstateAsset[];
  relationships: { type: RelationshipType; source: string; target: string }[];
  /** The relationship types the read covers: after a complete read, those it no longer shows are retired. */
  relationshipTypes: RelationshipType[];
  /**
   * The processes of its assets other than the root, when it read them in full: each such asset's
   * process set becomes exactly these (none for an asset that shows none).
   */
  processes?: EstateProcess[];
  /**
   * The discovered services of its assets, when it reads them: after a complete read, those it
   * reported before and no longer shows are retired.
   */
  services?: EstateService[];
  /** Everything was read: only then is anything retired, but by the parts read in full. */
  complete: boolean;
  /**
   * Parts read on their own (an AWS service in one region): each is a scope of its own below the
   * estate's, holding the assets it names; one read in full retires what it no longer shows, and
   * the edges at those, even when another part failed. The edges among assets still shown wait for
   * a complete read of the whole estate. Assets of no part belong to the estate's own scope.
   */
  parts?: EstatePart[];
}

export interface EstatePart {
  /** Its scope is the estate's and this name (AWS:123456789012/ec2:eu-west-1). */
  name: string;
  keys: string[];
  complete: boolean;
}

/** What a connector read of the assets at addresses, by address: their names (DNS), their leases (DHCP), what answers there (FINGERPRINT). */
export interface AddressFacts {
  method: ScanMethod;
  /** Each address with its FQDN and other facts: loaded onto the asset that holds the address, or a new UNKNOWN_ENDPOINT. */
  addresses: AddressFactsEntry[];
}

export interface AddressFactsEntry {
  address: string;
  /** The addresses it holds now ([address] if left out). */
  ipAddresses?: string[];
  /** The device's own MACs (DHCP's client): identity, as an interface's MAC is. */
  macAddresses?: string[];
  hostname?: string;
  fqdn?: string;
  /** What the connector took the asset for (FINGERPRINT's device class): a fact of its own rank, never identity. */
  assetType?: ObservedType;
  attributes: Record<string, string | number>;
  /** Facts kept as evidence only (GET /assets/{id}/provenance), never a field of the asset: DHCP's dhcpLease:<address>, FINGERPRINT's fingerprintEvidence. */
  evidence?: Record<string, unknown>;
  /**
   * The services that answer there (FINGERPRINT), loaded where no method of the run read the
   * host's own services; `complete` (every port asked was read) lets the method's earlier ones go.
   */
  services?: { rows: ObservedService[]; complete: boolean };
}

/** What a connector answers for one address: what it saw (if it got in), and what went wrong. */
export interface ConnectorResult {
  observation?: HostObservation;
  estate?: EstateObservation;
  addressFacts?: AddressFacts;
  errors: RunError[];
  /** The credential that worked, remembered for the address. */
  credentialId?: string;
}

export function emptyObservation(address: string, method: HostObservation['method'], assetType: ObservedType): HostObservation {
  return {
    address, method, assetType, macAddresses: [], ipAddresses: [], attributes: {},
    software: [], processes: [], services: [], interfaces: [], neighbors: [], fdb: [], connections: [], applications: [],
    complete: new Set(),
  };
}
