// Identity rules (docs/interface.md, decision 8), as pure functions: which identifiers an observed asset
// carries, normalised, and which existing asset they point at, rule by rule in order of strength.
import { createHash } from 'node:crypto';
import net from 'node:net';
import type { Category } from './asset-categories.js';

export const MATCH_RULES = ['SERIAL_NUMBER', 'MAC_ADDRESS', 'CLOUD_INSTANCE_ID', 'FQDN', 'HOSTNAME_SITE', 'IP_ADDRESS', 'NAME_IN_PARENT'] as const;
export type MatchRule = (typeof MATCH_RULES)[number];

export interface Identifier {
  rule: MatchRule;
  value: string;
}

export interface ObservedIdentity {
  assetType: string;
  displayName?: string;
  hostname?: string;
  fqdn?: string;
  site?: string;
  serialNumber?: string;
  macAddresses?: string[];
  ipAddresses?: string[];
  customAttributes?: Record<string, unknown>;
}

export interface KnownIdentifier {
  assetId: string;
  category: Category;
}

/** Finds the assets that hold any of some identifiers (discovery and the sub-record loader ask). */
export interface IdentityLookup {
  lookup(ids: Identifier[]): Promise<Map<string, KnownIdentifier>>;
}

// Serial numbers that firmware reports when it has none.
const PLACEHOLDER_SERIALS = new Set([
  '0', '00000000', '0123456789', '1234567890', 'NONE', 'N/A', 'NA', 'UNKNOWN', 'DEFAULT STRING', 'NOT SPECIFIED',
  'TO BE FILLED BY O.E.M.', 'SYSTEM SERIAL NUMBER', 'CHASSIS SERIAL NUMBER', 'INVALID', 'SERIAL', 'NOT APPLICABLE',
]);

export function normaliseSerial(value: string | undefined): string | undefined {
  const serial = value?.trim().toUpperCase();
  return serial && serial.length >= 4 && !PLACEHOLDER_SERIALS.has(serial) ? serial : undefined;
}

export function normaliseMac(value: string): string | undefined {
  const hex = value.toLowerCase().replace(/[^0-9a-f]/g, '');
  if (hex.length !== 12 || /^0+$/.test(hex) || /^f+$/.test(hex)) return undefined;
  return hex.match(/../g)?.join(':');
}

export function normaliseIp(value: string): string | undefined {
  const ip = value.trim().toLowerCase();
  const family = net.isIP(ip);
  if (!family) return undefined;
  if (family === 4 && (ip.startsWith('127.') || ip.startsWith('169.254.') || ip === '0.0.0.0')) return undefined;
  if (family === 6 && (ip === '::1' || ip === '::' || ip.startsWith('fe80:'))) return undefined;
  return ip;
}

export function normaliseFqdn(value: string | undefined): string | undefined {
  const fqdn = value?.trim().toLowerCase().replace(/\.$/, '');
  return fqdn && fqdn.includes('.') && !fqdn.endsWith('.localdomain') ? fqdn : undefined;
}

/**
 * The identifiers of an observed asset. NAME_IN_PARENT (type, name, parent id) is used only when
 * the asset carries nothing stronger: software, datastores and cloud objects are known by it.
 */
// The identity index holds values of up to 512 characters (migration create_asset_identifiers). A
// longer one (a long display name within its parent, a long cloud instance id) is kept as its
// digest, which matches as well as the value would.
const MAX_VALUE = 512;
const storable = ({ rule, value }: Identifier): Identifier => (value.length <= MAX_VALUE ? { rule, value } : { rule, value: `sha256:${createHash('sha256').update(value).digest('hex')}` });

export function identifiersOf(asset: ObservedIdentity, parentId: string | undefined): Identifier[] {
  const ids: Identifier[] = [];
  const serial = normaliseSerial(asset.serialNumber);
  if (serial) ids.push({ rule: 'SERIAL_NUMBER', value: serial });
  for (const mac of new Set((asset.macAddresses ?? []).map(normaliseMac))) if (mac) ids.push({ rule: 'MAC_ADDRESS', value: mac });
  const instanceId = asset.customAttributes?.instanceId;
  if (typeof instanceId === 'string' && instanceId.trim()) ids.push({ rule: 'CLOUD_INSTANCE_ID', value: instanceId.trim() });
  const fqdn = normaliseFqdn(asset.fqdn);
  if (fqdn) ids.push({ rule: 'FQDN', value: fqdn });
  const hostname = asset.hostname?.trim().toLowerCase().split('.')[0];
  if (hostname) ids.push({ rule: 'HOSTNAME_SITE', value: `${(asset.site ?? '').trim().toLowerCase()}|${hostname}` });
  for (const ip of new Set((asset.ipAddresses ?? []).map(normaliseIp))) if (ip) ids.push({ rule: 'IP_ADDRESS', value: ip });
  if (ids.length === 0 && asset.displayName) {
    ids.push({ rule: 'NAME_IN_PARENT', value: `${asset.assetType}|${parentId ?? ''}|${asset.displayName.trim().toLowerCase()}` });
  }
  return ids.map(storable);
}

export const identifierKey = (id: Identifier): string => `${id.rule}:${id.value}`;

// Identifiers that belong to one device whatever it is taken for: a serial, a NIC's MAC, a cloud
// instance. A match by one of them holds across categories (the type is then settled by the
// precedence of the sources' facts: SNMP knows a switch that SSH took for a host).
const DEVICE_IDENTIFIERS = new Set<MatchRule>(['SERIAL_NUMBER', 'MAC_ADDRESS', 'CLOUD_INSTANCE_ID']);

/**
 * Two categories may be one asset when equal, when one side is an unidentified endpoint, or when
 * the identifier is the device's own; a shared address or name never merges a VM into its host.
 */
function compatible(a: Category, b: Category, rule: MatchRule): boolean {
  return a === b || a === 'ENDPOINT' || b === 'ENDPOINT' || DEVICE_IDENTIFIERS.has(rule);
}

/**
 * The existing asset the identifiers point at: rule by rule, the first rule whose identifiers
 * point at assets of a compatible category decides (by majority when they disagree).
 */
export function resolveIdentity(
  ids: Identifier[],
  category: Category,
  known: (key: string) => KnownIdentifier | undefined,
): { assetId: string; matchedBy: MatchRule } | undefined {
  for (const rule of MATCH_RULES) {
    const votes = new Map<string, number>();
    for (const id of ids) {
      if (id.rule !== rule) continue;
      const hit = known(identifierKey(id));
      if (hit && compatible(hit.category, category, rule)) votes.set(hit.assetId, (votes.get(hit.assetId) ?? 0) + 1);
    }
    const best = [...votes.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];
    if (best) return { assetId: best[0], matchedBy: rule };
  }
  return undefined;
}
