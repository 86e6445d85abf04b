// Installed software packages (dpkg, rpm, apk, or an import), one row per asset and package name:
// upserted, so that a row's id and first_seen_at survive upgrades.
import { field, ON_HOST } from './asset-type-definition.js';
import { subRecordKind } from './sub-record-kind.js';
import type { PackageRow } from './sub-record-rows.js';

export const softwarePackageKind = subRecordKind({
  assetType: 'SOFTWARE_PACKAGE',
  type: {
    category: 'SOFTWARE',
    label: 'Software Package',
    parent: ON_HOST,
    fields: [field('install_date', 'date?', 'Install date'), field('package_manager', 'string?', 'dpkg, rpm, ...')],
  },
  dataset: 'software',
  table: 'software_packages',
  key: 'package_name',
  name: 'package_name',
  columns: [
    { name: 'package_name', api: 'packageName', type: 'text' },
    { name: 'version', api: 'version', type: 'text', attribute: true, shownAs: 'model' },
    { name: 'publisher', api: 'publisher', type: 'text', attribute: true, searched: true, shownAs: 'vendor' },
    { name: 'install_date', api: 'installDate', type: 'date', attribute: true, schemaKey: true },
    { name: 'package_manager', api: 'packageManager', type: 'text', attribute: true, schemaKey: true },
    { name: 'source', api: 'source', type: 'text', attribute: true },
  ],
  firstSeen: 'first_seen_at',
  lastSeen: 'last_seen_at',
  changesTracked: false,
  retention: { removedKey: 'packagesRemoved' },
  export: { columns: ['packageName', 'version', 'publisher', 'installDate', 'packageManager'], order: ['packageName'], equals: ['publisher', 'packageManager'] },
  toRow: (r: PackageRow, { source, observedAt }) => ({
    asset_id: r.assetId, package_name: r.packageName, version: r.version ?? null, publisher: r.publisher ?? null,
    install_date: r.installDate ?? null, package_manager: r.packageManager ?? null, source, first_seen_at: observedAt, last_seen_at: observedAt,
  }),
});
