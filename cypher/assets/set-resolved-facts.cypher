// After facts were dropped (aging), each asset takes the values its remaining facts resolve to:
// row.props are set, the fields in row.removed (no source reports them any more) are removed.
// The type and display name stay when no fact names them. A change of the feed when anything moved.
{{> changes/_next-seq}}
UNWIND range(0, size($rows) - 1) AS i
WITH txSeq, i, $rows[i] AS row
MATCH (a:Asset {id: row.id})
WITH txSeq, i, row, a,
     any(k IN row.removed WHERE a[k] IS NOT NULL) OR any(k IN keys(row.props) WHERE a[k] IS NULL OR a[k] <> row.props[k]) AS changed
SET a += row.props
FOREACH (k IN row.removed | SET a[k] = null)
SET a.searchText = toLower(coalesce(a.displayName, '') + ' ' + coalesce(a.hostname, '') + ' ' + coalesce(a.fqdn, '')),
    a.updatedAt = CASE WHEN changed THEN datetime() ELSE a.updatedAt END,
    a.changeKind = CASE WHEN changed THEN 'UPDATED' ELSE a.changeKind END,
    a.changeSeq = CASE WHEN changed THEN txSeq * 1000000 + i ELSE a.changeSeq END
RETURN count(a) AS updated
