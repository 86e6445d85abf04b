// Load step of import and discovery: one row per observed asset, keyed by the id that identity
// reconciliation gave it. firstSeenAt is set on create only; every write stamps lastSeenAt and the
// source. An observation brings a STALE or INACTIVE asset back to ACTIVE, never a DECOMMISSIONED one.
UNWIND $rows AS row
MERGE (a:Asset {id: row.id})
ON CREATE SET a.firstSeenAt = datetime($observedAt), a.status = 'ACTIVE', a.consecutiveScanFailures = 0,
              a.customAttributes = '{}', a.customAttributeKeys = [], a.sources = []
WITH a, row, [l IN labels(a) WHERE l <> 'Asset' AND l <> row.nodeLabel] AS oldLabels
CALL (a, oldLabels) {
  UNWIND oldLabels AS oldLabel
  REMOVE a:$(oldLabel)
}
SET a:$(row.nodeLabel)
SET a += row.props,
    a.lastSeenAt = datetime($observedAt),
    a.sources = CASE WHEN $source IN a.sources THEN a.sources ELSE a.sources + $source END,
    a.staleSince = CASE WHEN a.status IN ['STALE', 'INACTIVE'] THEN null ELSE a.staleSince END,
    a.status = CASE WHEN a.status IN ['STALE', 'INACTIVE'] THEN 'ACTIVE' ELSE a.status END
SET a.searchText = toLower(coalesce(a.displayName, '') + ' ' + coalesce(a.hostname, '') + ' ' + coalesce(a.fqdn, ''))
RETURN count(a) AS merged
