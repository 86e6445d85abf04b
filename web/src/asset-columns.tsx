// The columns of the assets list: every field the schema lists for the types shown (GET
// /schema/asset-types: the fields every asset has, each type's own fields and the custom attribute
// keys its assets hold, as customAttributes.<key>), each labelled by what it holds, with its unit.
// A column's id is what a saved view and the page's URL keep.
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { text, when, type Column } from './components/ui';
import type { Asset, SchemaEntry } from './types';

export const CUSTOM_PREFIX = 'customAttributes.';

const parsed = new WeakMap<Asset, Record<string, unknown>>();
/** An asset's custom attributes (JSON text in the API) as an object; {} when unreadable. */
export function customAttributes(asset: Asset): Record<string, unknown> {
  let values = parsed.get(asset);
  if (!values) {
    try {
      values = JSON.parse(asset.customAttributes) as Record<string, unknown>;
    } catch {
      values = {};
    }
    parsed.set(asset, values);
  }
  return values;
}

/**
 * Software keeps its publisher and version in vendor and model (docs/interface.md §2.2): the labels
 * of those fields for software (true), other assets (false) or both at once (undefined).
 */
export function vendorModelLabels(software: boolean | undefined): { vendor: string; model: string } {
  if (software === undefined) return { vendor: 'Vendor or publisher', model: 'Model or version' };
  return software ? { vendor: 'Publisher', model: 'Version' } : { vendor: 'Vendor', model: 'Model' };
}

export const isSoftwareCategory = (category: string) => category === 'SOFTWARE';

/** What the types shown make of the columns: software's labels, and whether any is synthesized. */
interface Shown {
  software: boolean | undefined;
  synthesized: boolean;
}

interface ColumnSpec {
  label: (shown: Shown) => string;
  /** The API's sort field, when the list sorts on it. */
  sort?: (shown: Shown) => string | undefined;
  render: (a: Asset) => ReactNode;
}

const fixed = (label: string) => () => label;
const list = (values: string[] | undefined) => (values ?? []).slice(0, 2).join(', ') || '—';

// The fields every asset has, in the chooser's order (displayName always first, and always shown).
const FIELDS: Record<string, ColumnSpec> = {
  displayName: { label: fixed('Name'), sort: () => 'displayName', render: (a) => <Link to={`/assets/${a.id}`}>{a.displayName}</Link> },
  assetCategory: { label: fixed('Category'), sort: () => 'assetCategory', render: (a) => a.assetCategoryLabel },
  assetType: { label: fixed('Type'), sort: () => 'assetType', render: (a) => a.assetSubtypeLabel },
  status: { label: fixed('Status'), sort: () => 'status', render: (a) => <span className={`status ${a.status.toLowerCase()}`}>{a.status}</span> },
  model: { label: (s) => vendorModelLabels(s.software).model, render: (a) => text(a.model) },
  vendor: { label: (s) => vendorModelLabels(s.software).vendor, render: (a) => text(a.vendor) },
  site: { label: fixed('Site'), sort: () => 'site', render: (a) => text(a.site) },
  environment: { label: fixed('Environment'), sort: () => 'environment', render: (a) => text(a.environment) },
  hostname: { label: fixed('Host name'), render: (a) => text(a.hostname) },
  fqdn: { label: fixed('FQDN'), render: (a) => text(a.fqdn) },
  ipAddresses: { label: fixed('Addresses'), render: (a) => list(a.ipAddresses) },
  macAddresses: { label: fixed('MAC addresses'), render: (a) => list(a.macAddresses) },
  serialNumber: { label: fixed('Serial number'), render: (a) => text(a.serialNumber) },
  parent: { label: fixed('Parent'), render: (a) => (a.parent ? <Link to={`/assets/${a.parent.id}`}>{a.parent.displayName}</Link> : '—') },
  lastScanOutcome: { label: fixed('Last scan'), render: (a) => text(a.lastScanOutcome) },
  lastScanAt: { label: fixed('Last scan at'), sort: () => 'lastScanAt', render: (a) => when(a.lastScanAt) },
  consecutiveScanFailures: { label: fixed('Failed scans in a row'), render: (a) => String(a.consecutiveScanFailures) },
  firstSeenAt: { label: fixed('First seen'), sort: () => 'firstSeenAt', render: (a) => when(a.firstSeenAt) },
  // Not with synthesized types: most of them refuse it, their last sighting being rewritten in place (api.yaml).
  lastSeenAt: { label: fixed('Last seen'), sort: (s) => (s.synthesized ? undefined : 'lastSeenAt'), render: (a) => when(a.lastSeenAt) },
  updatedAt: { label: fixed('Updated'), sort: () => 'updatedAt', render: (a) => when(a.updatedAt) },
};
// Fields of the schema that are no column of their own.
const NOT_COLUMNS = new Set(['id', 'customAttributes']);

/** A size in `unit`s, in the largest binary unit that keeps it at 1 or more. */
function size(value: unknown, unit: 'KiB' | 'MiB' | 'GiB'): string {
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let n = Number(value);
  if (value === null || value === undefined || value === '' || !Number.isFinite(n)) return text(value);
  let at = units.indexOf(unit);
  while (n >= 1024 && at < units.length - 1) {
    n /= 1024;
    at += 1;
  }
  return `${n.toLocaleString('en', { maximumFractionDigits: 1 })} ${units[at]}`;
}
const withUnit = (unit: string) => (value: unknown) => (typeof value === 'number' ? `${value.toLocaleString('en')} ${unit}` : text(value));

/** Custom attributes that are first-class fields of their types: a label people use, and the unit. */
const KNOWN_ATTRIBUTES: Record<string, { label: string; format?: (value: unknown) => string }> = {
  osName: { label: 'OS' },
  osVersion: { label: 'OS version' },
  kernel: { label: 'Kernel' },
  cpuCount: { label: 'CPUs' },
  memoryMb: { label: 'Memory', format: (v) => size(v, 'MiB') },
  owner: { label: 'Owner' },
  capacityGb: { label: 'Capacity', format: withUnit('GB') },
  freeGb: { label: 'Free', format: withUnit('GB') },
  memory_kb: { label: 'Memory', format: (v) => size(v, 'KiB') },
  speed_mbps: { label: 'Speed', format: withUnit('Mb/s') },
  speedMbps: { label: 'Speed', format: withUnit('Mb/s') },
  vlanId: { label: 'VLAN' },
  mtu: { label: 'MTU' },
  cidr: { label: 'CIDR' },
};
// Shown by default when every type shown has them (a list of hosts: OS, CPUs, memory, serial).
const HOST_COLUMNS = ['customAttributes.osName', 'customAttributes.cpuCount', 'customAttributes.memoryMb', 'serialNumber'];
const OWNER = 'customAttributes.owner';

/** A key as words ("powerState", "install_date": "Power state", "Install date"). */
const words = (key: string) => key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/_/g, ' ').toLowerCase().replace(/^./, (c) => c.toUpperCase());

const attributeText = (value: unknown): string => {
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v))).join(', ') || '—';
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return text(value);
};

/** A custom attribute's label, as people name it. */
export const attributeLabel = (key: string) => KNOWN_ATTRIBUTES[key]?.label ?? words(key);
/** A custom attribute's value as text, with its unit where the key has one. */
export const attributeValue = (key: string, value: unknown) => (KNOWN_ATTRIBUTES[key]?.format ?? attributeText)(value);

function attributeColumn(key: string): ColumnSpec {
  return { label: fixed(attributeLabel(key)), render: (a) => attributeValue(key, customAttributes(a)[key]) };
}

function spec(id: string): ColumnSpec | undefined {
  if (Object.hasOwn(FIELDS, id)) return FIELDS[id];
  return id.startsWith(CUSTOM_PREFIX) && id.length > CUSTOM_PREFIX.length ? attributeColumn(id.slice(CUSTOM_PREFIX.length)) : undefined;
}

/** The custom attributes of a type: its own fields (graph types keep them there) and the keys its assets hold. */
function attributesOf(entry: SchemaEntry): string[] {
  const own = entry.synthesized ? [] : entry.typeFields.map((f) => f.name).filter((name) => !Object.hasOwn(FIELDS, name) && !NOT_COLUMNS.has(name));
  return [...new Set([...own, ...entry.customAttributeKeys])];
}

export interface ColumnChoice {
  id: string;
  label: string;
}

export interface AssetColumns {
  /** Every column the chooser offers for the types shown, Name first. */
  available: ColumnChoice[];
  /** The columns shown when the page names none. */
  defaults: string[];
  /** The table's columns of these ids (Name always first; an id that is no field is left out). */
  columns(ids: string[]): Column<Asset>[];
}

/** The columns of a list that shows `shown` (the schema entries of the types it lists). */
export function assetColumns(shown: SchemaEntry[]): AssetColumns {
  const categories = new Set(shown.map((e) => e.category));
  const software = [...categories].every(isSoftwareCategory) ? true : [...categories].some(isSoftwareCategory) ? undefined : false;
  const context: Shown = { software: shown.length ? software : false, synthesized: shown.some((e) => e.synthesized) };
  const perType = shown.map(attributesOf);
  const attributes = [...new Set(perType.flat())].sort((a, b) => words(a).localeCompare(words(b)));
  const everyType = (id: string) => !id.startsWith(CUSTOM_PREFIX) || perType.every((keys) => keys.includes(id.slice(CUSTOM_PREFIX.length)));

  const choice = (id: string): ColumnChoice => ({ id, label: (spec(id) as ColumnSpec).label(context) });
  const available = [...Object.keys(FIELDS), ...attributes.map((k) => `${CUSTOM_PREFIX}${k}`)].map(choice);

  let defaults: string[];
  if (context.software === true) {
    // A list of software and packages: what tells two rows of one name apart is the version and the host.
    defaults = ['displayName', 'model', 'vendor', ...(shown.length > 1 ? ['assetType'] : []), 'status', 'parent', 'site', 'environment', 'lastSeenAt'];
  } else {
    const hosts = shown.length > 0 && HOST_COLUMNS.every(everyType) ? HOST_COLUMNS : [];
    defaults = ['displayName', 'assetCategory', 'assetType', ...hosts, 'status', 'site', 'environment', 'ipAddresses', 'parent', 'lastScanOutcome', 'lastSeenAt'];
  }
  if (attributes.includes('owner')) defaults.splice(defaults.indexOf('status'), 0, OWNER);

  return {
    available,
    defaults,
    columns(ids) {
      const wanted = ['displayName', ...ids.filter((id) => id !== 'displayName')];
      return wanted.flatMap((id) => {
        const s = spec(id);
        return s ? [{ key: id, label: s.label(context), sort: s.sort?.(context), render: s.render }] : [];
      });
    },
  };
}

/** The schema entries of the types a list shows: those its type filter names; else those of its categories, or every graph type. */
export function shownTypes(schema: SchemaEntry[], types: string[], categories: string[]): SchemaEntry[] {
  if (types.length) return schema.filter((e) => types.includes(e.type));
  return schema.filter((e) => !e.synthesized && (categories.length === 0 || categories.includes(e.category)));
}
