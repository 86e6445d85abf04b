// The connector registry: one line per discovery method. A new connector adds its folder (its
// declaration: credential kinds, settings, error codes with their diagnosis rules), a line here, a
// migration if it stores something new, and its enums in api.yaml (a test checks them). Every list
// of methods and of scan error codes is derived from here.
import type { CredentialKind } from '../../credentials/credential-kinds.js';
import type { ScanErrorDefinition } from '../scan-error.js';
import { SHARED_ERRORS, type SharedErrorCode } from '../shared-scan-errors.js';
import { awsConnector } from './aws/aws.js';
import { azureConnector } from './azure/azure.js';
import type { Connector, InventoryConnector } from './connector.js';
import { containersConnector } from './containers/containers.js';
import { dhcpConnector } from './dhcp/dhcp.js';
import { dnsConnector } from './dns/dns.js';
import { fingerprintConnector } from './fingerprint/fingerprint.js';
import { kubernetesConnector } from './kubernetes/kubernetes.js';
import { ldapConnector } from './ldap/ldap.js';
import { libvirtConnector } from './libvirt/libvirt.js';
import { snmpConnector } from './snmp/snmp.js';
import { sshConnector } from './ssh/ssh.js';
import { sweepConnector } from './sweep/sweep.js';
import { vcenterConnector } from './vcenter/vcenter.js';

/** In the order a run takes them at an address. */
export const CONNECTORS = [sweepConnector, sshConnector, snmpConnector, vcenterConnector, libvirtConnector, containersConnector, dnsConnector, dhcpConnector, ldapConnector, kubernetesConnector, awsConnector, azureConnector, fingerprintConnector] as const satisfies readonly Connector[];

export type DiscoveryMethod = (typeof CONNECTORS)[number]['method'];
export const DISCOVERY_METHODS = CONNECTORS.map((c) => c.method) as DiscoveryMethod[];
export const DEFAULT_METHODS = CONNECTORS.filter((c) => c.enabledByDefault).map((c) => c.method) as DiscoveryMethod[];

export type InventoryMethod = Extract<(typeof CONNECTORS)[number], { stage: 'inventory' }>['method'];
export const INVENTORY_CONNECTORS = CONNECTORS.filter((c) => c.stage === 'inventory') as (InventoryConnector & { method: InventoryMethod })[];
export const INVENTORY_METHODS = INVENTORY_CONNECTORS.map((c) => c.method) as InventoryMethod[];

export function inventoryConnector(method: string): InventoryConnector | undefined {
  return INVENTORY_CONNECTORS.find((c) => c.method === method);
}

/** The credential kinds a method accepts. */
export function credentialKindsOf(method: string): readonly CredentialKind[] {
  return inventoryConnector(method)?.credentialKinds ?? [];
}

/** Rank of each method's facts, by fact source (the method in lower case). */
export const CONNECTOR_FACT_RANKS: Record<string, number> = Object.fromEntries(CONNECTORS.map((c) => [c.method.toLowerCase(), c.factRank]));

type OwnCodes<C> = C extends { errors: infer Errors } ? keyof Errors & string : never;
export type ScanErrorCode = SharedErrorCode | OwnCodes<(typeof CONNECTORS)[number]>;

/** Every scan error code, the shared ones first and then each connector's in registry order, with its meaning and diagnosis rule. */
export const SCAN_ERRORS = Object.fromEntries([SHARED_ERRORS, ...CONNECTORS.map((c) => c.errors)].flatMap((errors) => Object.entries(errors))) as Record<ScanErrorCode, ScanErrorDefinition>;
