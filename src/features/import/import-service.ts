// Bulk import over HTTP (POST /import): a caller's bundle is checked whole (its shape, as every
// bundle is, and what only a caller's needs: its addresses, the size of its custom attributes and
// its observation time), then handed to the inventory writer under the caller's name.
import net from 'node:net';
import type { FieldError } from '../../platform/errors.js';
import type { Actor } from '../auth/audit-log.js';
import { bundleErrors, refuseInvalid, type InventoryBundle, type WriteResult } from '../inventory/inventory-bundle.js';
import type { InventoryWriter } from '../inventory/inventory-writer.js';

export interface ImportBundle extends InventoryBundle {
  source: string;
  /** Fields (or custom.<key>) whose value this source owns: they outrank discovery's. */
  owns?: string[];
}

/** How far from now an import's observedAt may lie. */
export interface ObservationWindow {
  /** Older observations would be dropped at the next sweep: the shorter of the fact aging and the sub-record retention, in days. */
  maxAgeDays: number;
  /** How far ahead of the service's clock a sender's may be. */
  clockSkewSeconds: number;
}

/** The most bytes of an asset's customAttributes as JSON (UTF-8): every asset read carries them. */
const CUSTOM_ATTRIBUTES_MAX_BYTES = 65_536;

// 00:50:56:aa:00:01, 00-50-56-AA-00-01, 005056aa0001, 0050.56aa.0001.
const MAC_ADDRESS = /^(?:[0-9a-f]{2}([:-])(?:[0-9a-f]{2}\1){4}[0-9a-f]{2}|[0-9a-f]{12}|[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4})$/i;
const isMacAddress = (value: string) => MAC_ADDRESS.test(value.trim());
const isIpAddress = (value: string) => net.isIP(value.trim()) !== 0;
const isInterfaceAddress = (value: string) => {
  const [ip = '', prefix, ...rest] = value.trim().split('/');
  const family = net.isIP(ip);
  return family !== 0 && rest.length === 0 && (prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128)));
};

/** Every address of a bundle that is none, by path: a MAC in any usual notation (normalised later), an IP address. */
function checkAddresses(bundle: ImportBundle, errors: FieldError[]): void {
  const address = (path: string, value: string | undefined, valid: (v: string) => boolean, what: string) => {
    if (value !== undefined && !valid(value)) errors.push({ path, message: `${JSON.stringify(value.slice(0, 64))} is not ${what}` });
  };
  bundle.assets.forEach((asset, i) => {
    asset.macAddresses?.forEach((mac, k) => address(`body.assets.${i}.macAddresses.${k}`, mac, isMacAddress, 'a MAC address'));
    asset.ipAddresses?.forEach((ip, k) => address(`body.assets.${i}.ipAddresses.${k}`, ip, isIpAddress, 'an IP address'));
  });
  (bundle.interfaces ?? []).forEach((nic, i) => {
    address(`body.interfaces.${i}.macAddress`, nic.macAddress ?? undefined, isMacAddress, 'a MAC address');
    nic.ipAddresses?.forEach((ip, k) => address(`body.interfaces.${i}.ipAddresses.${k}`, ip, isInterfaceAddress, 'an IP address (with an optional /prefix)'));
  });
  (bundle.fdb ?? []).forEach((e, i) => address(`body.fdb.${i}.macAddress`, e.macAddress, isMacAddress, 'a MAC address'));
}

/** What a schema cannot say of a caller's bundle: customAttributes by their encoded size, observedAt against the clock. */
function checkCallerBounds(bundle: ImportBundle, window: ObservationWindow, errors: FieldError[]): void {
  bundle.assets.forEach((asset, i) => {
    const bytes = asset.customAttributes === undefined ? 0 : Buffer.byteLength(JSON.stringify(asset.customAttributes));
    if (bytes > CUSTOM_ATTRIBUTES_MAX_BYTES) errors.push({ path: `body.assets.${i}.customAttributes`, message: `is ${bytes} bytes as JSON; the most is ${CUSTOM_ATTRIBUTES_MAX_BYTES}` });
  });
  if (bundle.observedAt === undefined) return;
  const now = Date.now();
  const at = Date.parse(bundle.observedAt);
  if (at < now - window.maxAgeDays * 86_400_000 || at > now + window.clockSkewSeconds * 1000) {
    errors.push({
      path: 'body.observedAt',
      message: `must be within the last ${window.maxAgeDays} days (older facts and sub-records go at the next sweep: service.aging.inactive-after-days, service.retention.sub-asset-days) and at most ${window.clockSkewSeconds} s ahead of the service's clock (service.import.clock-skew-seconds)`,
    });
  }
}

export class ImportService {
  constructor(
    private readonly writer: InventoryWriter,
    private readonly window: ObservationWindow,
  ) {}

  /**
   * Loads a caller's bundle. Every problem is named at once, and nothing is written unless there
   * is none (discovery, which reports what hosts hold at its own time, odd addresses included,
   * is not held to the address and time checks).
   */
  async import(actor: Actor, bundle: ImportBundle): Promise<WriteResult> {
    const errors = bundleErrors(bundle);
    checkAddresses(bundle, errors);
    checkCallerBounds(bundle, this.window, errors);
    refuseInvalid(errors);
    return this.writer.apply({ name: bundle.source, actor, owns: bundle.owns }, bundle);
  }
}
