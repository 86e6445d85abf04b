// Load step of import and discovery: one row per observed asset, keyed by the id that identity
// reconciliation gave it, with the values its facts resolve to (row.props, row.type; a null type
// keeps the one the asset has, or takes row.fallbackType for a new asset). firstSeenAt is set on
// create only; every write stamps lastSeenAt and the source; an observation brings a STALE or
// INACTIVE asset back to ACTIVE, never a DECOMMISSIONED one. updatedAt and changeSeq move only
// when a value, the type or the status changed, not on a mere sighting. Each change of status is
// logged on the asset (statusAt, statusTo, statusBy: its history, GET /assets/{id}/history).
{{> changes/_next-seq}}
WITH txSeq, datetime($observedAt) AS observedAt
UNWIND range(0, size($rows) - 1) AS i
WITH txSeq, observedAt, i, $rows[i] AS row
MERGE (a:Asset {id: row.id})
ON CREATE SET a.firstSeenAt = observedAt, a.status = 'ACTIVE', a.consecutiveScanFailures = 0, a.sources = [], a.createdSeq = txSeq * 1000000 + i,
              a.statusAt = [datetime().epochMillis], a.statusTo = ['ACTIVE'], a.statusBy = ['SOURCE:' + $source]
WITH txSeq, observedAt, i, row, a,
     CASE WHEN row.type IS NOT NULL THEN [row.type, row.category, row.nodeLabel]
          WHEN a.assetType IS NOT NULL THEN [a.assetType, a.assetCategory, null]
          ELSE [row.fallbackType, row.fallbackCategory, row.fallbackLabel] END AS kind
WITH txSeq, observedAt, i, row, a, kind,
     a.createdSeq = txSeq * 1000000 + i
       OR a.assetType IS NULL OR a.assetType <> kind[0]
       OR a.status IN ['STALE', 'INACTIVE']
       OR any(k IN keys(row.props) WHERE a[k] IS NULL OR a[k] <> row.props[k]) AS changed,
     [l IN labels(a) WHERE l <> 'Asset' AND kind[2] IS NOT NULL AND l <> kind[2]] AS oldLabels
// Labels as lists (an empty one changes nothing): no subquery per row.
REMOVE a:$(oldLabels)
FOREACH (_ IN CASE WHEN a.status IN ['STALE', 'INACTIVE'] THEN [1] ELSE [] END |
  SET a.statusAt = coalesce(a.statusAt, []) + datetime().epochMillis, a.statusTo = coalesce(a.statusTo, []) + 'ACTIVE', a.statusBy = coalesce(a.statusBy, []) + ('SOURCE:' + $source))
SET a:$(CASE WHEN kind[2] IS NULL THEN [] ELSE [kind[2]] END)
SET a += row.props,
    a.assetType = kind[0],
    a.assetCategory = kind[1],
    a.displayName = coalesce(row.props.displayName, a.displayName, row.fallbackName),
    a.lastSeenAt = observedAt,
    a.sources = CASE WHEN $source IN a.sources THEN a.sources ELSE a.sources + $source END,
    a.staleSince = CASE WHEN a.status IN ['STALE', 'INACTIVE'] THEN null ELSE a.staleSince END,
    a.status = CASE WHEN a.status IN ['STALE', 'INACTIVE'] THEN 'ACTIVE' ELSE a.status END
SET a.searchText = toLower(coalesce(a.displayName, '') + ' ' + coalesce(a.hostname, '') + ' ' + coalesce(a.fqdn, '')),
    a.updatedAt = CASE WHEN changed THEN datetime() ELSE a.updatedAt END,
    a.changeKind = CASE WHEN a.createdSeq = txSeq * 1000000 + i THEN 'CREATED' WHEN changed THEN 'UPDATED' ELSE a.changeKind END,
    a.changeSeq = CASE WHEN changed THEN txSeq * 1000000 + i ELSE a.changeSeq END
RETURN count(a) AS merged
