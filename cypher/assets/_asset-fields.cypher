// The fields of an asset as statements return it: a list, one value per field in the order of
// ASSET_FIELDS (asset-summary.ts), which the driver decodes at about half the cost of a map (no
// key on every row); datetimes as text (far cheaper to decode than temporal values).
[a.id, a.displayName, a.assetType, a.assetCategory, a.status, a.vendor, a.model, a.customAttributes,
 a.consecutiveScanFailures, a.lastScanOutcome, toString(a.lastScanAt), a.hostname, a.fqdn, a.site,
 a.environment, a.serialNumber, a.macAddresses, a.ipAddresses, toString(a.staleSince),
 toString(a.decommissionedAt), toString(a.firstSeenAt), toString(a.lastSeenAt), toString(a.updatedAt),
 a.sources]
