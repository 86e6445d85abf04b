// A page of the relationships of one asset (either end), from the asset's own edges; {{filters}}
// are fixed predicates from code.
MATCH (a:Asset {id: $assetId})-[r]-(o:Asset)
WITH r, startNode(r) AS s, endNode(r) AS t
WHERE {{filters}}
RETURN [r.id, type(r), r.active, toString(r.firstSeenAt), toString(r.lastSeenAt), r.sources,
        s.id, s.displayName, s.assetType, s.assetCategory, t.id, t.displayName, t.assetType, t.assetCategory,
        toString(r.updatedAt), toString(r.retiredAt)] AS row
ORDER BY type(r), r.id
SKIP $skip
LIMIT $limit
